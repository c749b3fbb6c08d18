import { useEffect, useRef } from 'react';
import { useSearch, useLocation } from 'wouter';
import { useSite } from './site/site-context';

// Spec §2.7: a page-analytics event is pushed on every navigation.

export type PageCategory =
  | 'login'
  | 'forgot-password'
  | 'registration'
  | 'smart-registration'
  | 'roadblock'
  | 'account'
  | 'error'
  | 'dev';

export interface PageViewEvent {
  event: 'pageView';
  path: string;
  brand: string;
  province: string;
  language: string;
  pageCategory: PageCategory;
}

declare global {
  interface Window {
    dataLayer?: unknown[];
  }
}

export function pushPageView(event: Omit<PageViewEvent, 'event'>, target: Window = window): PageViewEvent {
  const pageView: PageViewEvent = { event: 'pageView', ...event };
  target.dataLayer ??= [];
  target.dataLayer.push(pageView);
  return pageView;
}

/**
 * Pushes one pageView event when the page mounts and whenever the location
 * changes while it stays mounted. Province and language changes are not
 * navigations: the event carries their values at the time of navigation.
 */
export function usePageView(pageCategory: PageCategory): void {
  const [path] = useLocation();
  const search = useSearch();
  const site = useSite();
  const current = useRef({ site, pageCategory });
  const lastPushed = useRef<string | null>(null);

  useEffect(() => {
    current.current = { site, pageCategory };
  });
  useEffect(() => {
    const key = `${path}?${search}`;
    // Strict mode runs effects twice on mount; one navigation is one event.
    if (lastPushed.current === key) return;
    lastPushed.current = key;
    const { site: s, pageCategory: category } = current.current;
    pushPageView({ path, brand: s.brand.id, province: s.province, language: s.language, pageCategory: category });
  }, [path, search]);
}
