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

function promos(id: string): NonNullable<PublicBrand['promos']> {
  return {
    en: {
      title: 'Your insurance in your pocket',
      text: 'See your policies wherever you are.',
      image: `/brands/${id}/promo.svg`,
      imageAlt: '',
      link: { url: `https://www.${id}.test/en/app`, text: 'Discover the app' },
    },
    fr: {
      title: 'Votre assurance dans votre poche',
      text: 'Consultez vos polices où que vous soyez.',
      image: `/brands/${id}/promo.svg`,
      imageAlt: 'Un téléphone',
      link: { url: `https://www.${id}.test/fr/app`, text: 'Découvrir l’application' },
    },
  };
}

export const belair: PublicBrand = {
  ...common,
  id: 'belair',
  name: 'belairdirect',
  names: { en: 'belairdirect', fr: 'belairdirect' },
  apiKey: 'belair-test-key',
  defaultProvince: 'on',
  defaultLanguage: 'en',
  provinces: [province('qc', ['fr', 'en']), province('on', ['en', 'fr']), province('ab', ['en'])],
  links: links('www.belairdirect.test'),
  screenShare: true,
  smartPinRoadblock: 'pin-identification',
  promo: promos('belair').en,
  promos: promos('belair'),
};

export const bna: PublicBrand = {
  ...common,
  id: 'bna',
  name: 'National Bank Insurance',
  names: { en: 'National Bank Insurance', fr: 'Banque Nationale Assurances' },
  apiKey: 'bna-test-key',
  defaultProvince: 'qc',
  defaultLanguage: 'fr',
  provinces: [province('qc', ['fr', 'en']), province('on', ['en', 'fr']), province('ab', ['en', 'fr'], false)],
  links: links('www.bna.test'),
  screenShare: false,
};

export const servus: PublicBrand = {
  ...common,
  id: 'servus',
  name: 'Servus Insurance',
  names: { en: 'Servus Insurance', fr: 'Assurance Servus' },
  apiKey: 'servus-test-key',
  defaultProvince: 'ab',
  defaultLanguage: 'en',
  provinces: [province('ab', ['en'])],
  links: links('www.servus.test'),
  screenShare: false,
};

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
