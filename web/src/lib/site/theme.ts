import type { BrandTheme } from './types';

// Brand colours become CSS custom properties on <html>. They are set through
// the CSSOM because the CSP forbids inline style attributes in the markup.
const themeProperties: Record<keyof BrandTheme, string> = {
  primary: '--brand-primary',
  primaryText: '--brand-primary-text',
  accent: '--brand-accent',
  background: '--brand-background',
  text: '--brand-text',
};

export function applyTheme(theme: BrandTheme, root: HTMLElement = document.documentElement): void {
  for (const [name, property] of Object.entries(themeProperties) as [keyof BrandTheme, string][]) {
    const value = theme[name];
    if (value) root.style.setProperty(property, value);
  }
}
