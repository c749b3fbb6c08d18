import type { PublicBrand, PublicProvince, SiteConfig } from '@/lib/site/types';

// Unit-test stand-ins for what the server injects into index.html (the real
// brands live in config/brands/*.yaml and reach the browser tests).

function province(key: string, languages: PublicProvince['languages'], menu = true): PublicProvince {
  return {
    key,
    languages,
    menu,
    license: true,
    ubi: false,
    phone: `1 833-000-01${key === 'qc' ? '01' : '02'}`,
    timeZone: 'America/Toronto',
    hours: { weekdays: { open: '08:00', close: '18:00' }, saturday: null },
  };
}

function links(site: string): PublicBrand['links'] {
  const link = (path: string) => ({ en: `https://${site}/en/${path}`, fr: `https://${site}/fr/${path}` });
  return {
    marketing: link(''),
    certificate: link('certificate'),
    privacy: link('privacy'),
    terms: link('terms'),
    security: link('security'),
    screenShare: link('screen-sharing'),
    appStore: link('app-store'),
    googlePlay: link('google-play'),
  };
}

const theme: PublicBrand['theme'] = {
  primary: '#C8102E',
  primaryText: '#FFFFFF',
  accent: '#0B6A88',
  background: '#FFFFFF',
  text: '#1C1C1C',
};

const common = {
  features: { registration: true, chatbot: true, usenewmarketingredirection: true },
  theme,
  policyNumber: { length: 7, mask: 'AAA-AAAA', byProvince: {} },
  driverLicenceMasks: { qc: 'A9999-999999-99' },
  sso: { loginUrl: { en: '/pkmslogin.form', fr: '/pkmslogin.form' }, external: false },
  promo: null,
  promos: null,
  smartPinRoadblock: 'identity-verification' as PublicBrand['smartPinRoadblock'],
};

/** The app promotion of a brand's login page, in each language. */
function promos(id: string): NonNullable<PublicBrand['promos']> {
  const promo = (language: 'en' | 'fr', title: string, text: string, imageAlt: string, linkText: string) => ({
    title,
    text,
    image: `/brands/${id}/promo.svg`,
    imageAlt,
    link: { url: `https://www.${id}.test/${language}/app`, text: linkText },
  });
  return {
    en: promo('en', 'Your insurance in your pocket', 'See your policies wherever you are.', '', 'Discover the app'),
    fr: promo('fr', 'Votre assurance dans votre poche', 'Consultez vos polices où que vous soyez.', 'Un téléphone', 'Découvrir l’application'),
  };
}

/** A test brand: its names (the English one its name), key, site and provinces; the rest common unless given. */
function brand(
  id: string,
  names: PublicBrand['names'],
  site: string,
  home: Pick<PublicBrand, 'defaultProvince' | 'defaultLanguage' | 'provinces' | 'screenShare'>,
  extra: Partial<PublicBrand> = {},
): PublicBrand {
  return { ...common, id, name: names.en, names, apiKey: `${id}-test-key`, links: links(site), ...home, ...extra };
}

export const belair = brand(
  'belair',
  { en: 'belairdirect', fr: 'belairdirect' },
  'www.belairdirect.test',
  {
    defaultProvince: 'on',
    defaultLanguage: 'en',
    provinces: [province('qc', ['fr', 'en']), province('on', ['en', 'fr']), province('ab', ['en'])],
    screenShare: true,
  },
  { smartPinRoadblock: 'pin-identification', promo: promos('belair').en, promos: promos('belair') },
);

export const bna = brand('bna', { en: 'National Bank Insurance', fr: 'Banque Nationale Assurances' }, 'www.bna.test', {
  defaultProvince: 'qc',
  defaultLanguage: 'fr',
  provinces: [province('qc', ['fr', 'en']), province('on', ['en', 'fr']), province('ab', ['en', 'fr'], false)],
  screenShare: false,
});

export const servus = brand('servus', { en: 'Servus Insurance', fr: 'Assurance Servus' }, 'www.servus.test', {
  defaultProvince: 'ab',
  defaultLanguage: 'en',
  provinces: [province('ab', ['en'])],
  screenShare: false,
});

export function siteConfig(overrides: Partial<SiteConfig> = {}): SiteConfig {
  const brand = overrides.brand ?? belair;
  return {
    brand,
    province: brand.defaultProvince,
    language: brand.defaultLanguage,
    webview: false,
    dev: true,
    ...overrides,
  };
}
