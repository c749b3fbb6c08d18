import { useEffect, useMemo, useRef } from 'react';
import { useSite } from '@/lib/site/site-context';
import { createMainClient, createSecondClient, type ApiClient, type ApiSite } from './client';

export interface ApiClients {
  main: ApiClient<'/api/v2'>;
  second: ApiClient<'/api/v1'>;
}

const BYPASS_KEY = 'guichet.maintenancePageBypass';

/**
 * Spec §7's maintenancePageBypass, passed on by the second client: staff
 * open a page with ?maintenancePageBypass=… and the tab keeps it
 * (sessionStorage) as the app moves on to pages without it; an empty value
 * forgets it.
 */
export function maintenancePageBypass(): string | null {
  const fromPage = new URLSearchParams(window.location.search).get('maintenancePageBypass');
  try {
    if (fromPage === null) return window.sessionStorage.getItem(BYPASS_KEY);
    if (fromPage === '') window.sessionStorage.removeItem(BYPASS_KEY);
    else window.sessionStorage.setItem(BYPASS_KEY, fromPage);
  } catch {
    // storage disabled or full: only pages that carry it pass it on
  }
  return fromPage || null;
}

/**
 * The API clients, sending the province and language the visitor has chosen
 * at the moment of each request. Stable across renders.
 */
export function useApiClients(): ApiClients {
  const site = useSite();
  const current = useRef<ApiSite>({ province: site.province, language: site.language, apiKey: site.brand.apiKey });
  useEffect(() => {
    current.current = { province: site.province, language: site.language, apiKey: site.brand.apiKey };
  }, [site.province, site.language, site.brand.apiKey]);
  return useMemo(() => {
    const options = { site: () => current.current };
    return { main: createMainClient(options), second: createSecondClient({ ...options, maintenancePageBypass }) };
  }, []);
}
