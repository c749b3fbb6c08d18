import { isLanguage, type SiteConfig } from './types';

export const SITE_CONFIG_ELEMENT_ID = 'guichet-site';

export class SiteConfigError extends Error {
  override name = 'SiteConfigError';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads the SiteConfig the server injects into index.html as
 * <script id="guichet-site" type="application/json">. The JSON is the
 * server's, so only the fields the shell cannot do without are checked.
 */
export function readSiteConfig(doc: Document = document): SiteConfig {
  const element = doc.getElementById(SITE_CONFIG_ELEMENT_ID);
  if (!element?.textContent) {
    throw new SiteConfigError(`#${SITE_CONFIG_ELEMENT_ID} is missing from the page`);
  }
  let data: unknown;
  try {
    data = JSON.parse(element.textContent);
  } catch (err) {
    throw new SiteConfigError(`#${SITE_CONFIG_ELEMENT_ID} is not valid JSON: ${String(err)}`);
  }
  if (!isObject(data) || !isObject(data.brand)) {
    throw new SiteConfigError('site configuration: brand is missing');
  }
  const brand = data.brand;
  if (typeof brand.id !== 'string' || typeof brand.name !== 'string') {
    throw new SiteConfigError('site configuration: brand.id and brand.name must be strings');
  }
  if (!isObject(brand.names) || typeof brand.names.en !== 'string' || typeof brand.names.fr !== 'string') {
    throw new SiteConfigError('site configuration: brand.names must give the name in en and fr');
  }
  if (!Array.isArray(brand.provinces) || brand.provinces.length === 0) {
    throw new SiteConfigError('site configuration: brand.provinces must be a non-empty list');
  }
  if (!isObject(brand.links) || !isObject(brand.theme)) {
    throw new SiteConfigError('site configuration: brand.links and brand.theme are required');
  }
  if (typeof data.province !== 'string') {
    throw new SiteConfigError('site configuration: province must be a string');
  }
  if (!isLanguage(data.language)) {
    throw new SiteConfigError(`site configuration: language ${JSON.stringify(data.language)} is not en or fr`);
  }
  return data as unknown as SiteConfig;
}
