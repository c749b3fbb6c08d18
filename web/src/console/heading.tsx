import { useEffect, useRef, type ReactNode } from 'react';
import { useT } from '@/i18n/i18n';

/**
 * A page's h1: it takes the focus when the page appears (a screen reader
 * announces the new page) and names the document.
 */
export function PageHeading({ children, id }: { children: ReactNode; id?: string }) {
  const t = useT();
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
    document.title = `${ref.current?.textContent ?? ''} – ${t('console.title')}`;
  }, [t, children]);
  return (
    <h1 ref={ref} id={id} tabIndex={-1} className="console-heading">
      {children}
    </h1>
  );
}
