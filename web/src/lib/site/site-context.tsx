import { createContext, startTransition, use, useCallback, useMemo, useState, type ReactNode } from 'react';
import { replaceAddressAfterChoice } from './address';
import { writeCookie } from './cookies';
import { resolve } from './resolve';
import type { Language, PublicBrand, PublicProvince, SiteConfig } from './types';

export interface Site {
  /** The brand, its name in the current language (brand.name). */
  brand: PublicBrand;
  province: string;
  /** The brand's configuration of the current province. */
  provinceConfig: PublicProvince | undefined;
  language: Language;
  /** Languages the current province offers; the toggle shows when there are two. */
  provinceLanguages: Language[];
  webview: boolean;
  dev: boolean;
  /** Changes the province (cookie + state, no reload, no path change). */
  setProvince: (province: string) => void;
  /** Changes the language (cookie + state, no reload, no path change). */
  setLanguage: (language: Language) => void;
}

const SiteContext = createContext<Site | null>(null);

export function SiteProvider({ config, children }: { config: SiteConfig; children: ReactNode }) {
  const { brand } = config;
  const [selection, setSelection] = useState(() =>
    resolve(brand, { query: { province: config.province, lang: config.language } }),
  );

  // Spec §4.5: province and language changes are state updates; no path is
  // shown. They run as transitions so the page keeps showing the current
  // language until the new catalogue has loaded. A province that does not
  // offer the current language switches the language too, and its cookie
  // follows so that a reload shows the same page. A ?province= or ?lang= in
  // the address takes the choice too: the server reads it before the cookies.
  const setProvince = useCallback(
    (province: string) => {
      const next = resolve(brand, { query: { province, lang: selection.language } });
      writeCookie('province', next.province);
      replaceAddressAfterChoice(next);
      if (next.language === selection.language) {
        setSelection(next);
        return;
      }
      writeCookie('language', next.language);
      startTransition(() => setSelection(next));
    },
    [brand, selection.language],
  );
  const setLanguage = useCallback(
    (language: Language) => {
      const next = resolve(brand, { query: { province: selection.province, lang: language } });
      writeCookie('language', next.language);
      replaceAddressAfterChoice(next);
      startTransition(() => setSelection(next));
    },
    [brand, selection.province],
  );

  // The brand writes its name per language (Intact Insurance, Intact
  // Assurance); brand.name follows the language the page is in now.
  // So does the promo panel (brand.promo, brand.promos).
  const name = brand.names[selection.language];
  const promo = brand.promos?.[selection.language] ?? null;
  const localBrand = useMemo(() => ({ ...brand, name, promo }), [brand, name, promo]);

  const site = useMemo<Site>(() => {
    const provinceConfig = brand.provinces.find((p) => p.key === selection.province);
    return {
      brand: localBrand,
      province: selection.province,
      provinceConfig,
      language: selection.language,
      provinceLanguages: provinceConfig?.languages ?? [selection.language],
      webview: config.webview,
      dev: config.dev,
      setProvince,
      setLanguage,
    };
  }, [brand, localBrand, config.webview, config.dev, selection, setProvince, setLanguage]);

  return <SiteContext value={site}>{children}</SiteContext>;
}

export function useSite(): Site {
  const site = use(SiteContext);
  if (!site) throw new Error('useSite must be used inside <SiteProvider>');
  return site;
}
