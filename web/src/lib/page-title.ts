import { useEffect } from 'react';
import { useT } from '@/i18n/i18n';
import { useSite } from './site/site-context';

/** Sets document.title to "<page> | <brand>" while the page is shown. */
export function usePageTitle(page: string): void {
  const t = useT();
  const { brand } = useSite();
  const title = t('shell.pageTitle', { page, brand: brand.name });
  useEffect(() => {
    document.title = title;
  }, [title]);
}
