import { useEffect, useMemo, useRef } from 'react';
import { useSite } from '@/lib/site/site-context';
import { createMainClient, createSecondClient, type ApiClient, type ApiSite } from './client';

export interface ApiClients {
  main: ApiClient<'/api/v2'>;
  second: ApiClient<'/api/v1'>;
}

/** The maintenancePageBypass query parameter of the page, passed on by the second client. */
export function maintenancePageBypass(): string | null {
  return new URLSearchParams(window.location.search).get('maintenancePageBypass');
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
