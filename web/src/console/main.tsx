import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ConsoleApp } from './app';
import { initialLanguage } from './messages';
import '@/styles/global.css';

// The staff console's entry (console.html, served on the console host only):
// nothing here is imported by the portal's entry (src/main.tsx).
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ConsoleApp initialLanguage={initialLanguage()} />
    </StrictMode>,
  );
}
