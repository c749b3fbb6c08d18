import { afterEach, describe, expect, it } from 'vitest';
import { siteConfig } from '@/test/site-fixture';
import { readSiteConfig, SiteConfigError } from './config';

// index.html fixture: the server puts the JSON in <head> (internal/httpapi/spa.go).
function injectSiteScript(text: string | null) {
  const script = document.createElement('script');
  script.id = 'guichet-site';
  script.type = 'application/json';
  if (text !== null) script.textContent = text;
  document.head.append(script);
}

afterEach(() => document.getElementById('guichet-site')?.remove());

describe('readSiteConfig', () => {
  it('reads the injected configuration', () => {
    const config = siteConfig({ province: 'qc', language: 'fr', webview: true });
    injectSiteScript(JSON.stringify(config));
    expect(readSiteConfig()).toEqual(config);
  });

  const broken: { name: string; text: string | null; message: RegExp }[] = [
    { name: 'missing script', text: null, message: /missing/ },
    { name: 'not JSON', text: '{brand:', message: /not valid JSON/ },
    { name: 'not an object', text: '[]', message: /brand is missing/ },
    { name: 'no brand', text: JSON.stringify({ province: 'on', language: 'en' }), message: /brand is missing/ },
    {
      name: 'no provinces',
      text: JSON.stringify({ ...siteConfig(), brand: { ...siteConfig().brand, provinces: [] } }),
      message: /provinces/,
    },
    { name: 'bad language', text: JSON.stringify({ ...siteConfig(), language: 'de' }), message: /"de" is not en or fr/ },
    { name: 'no province', text: JSON.stringify({ ...siteConfig(), province: null }), message: /province must be a string/ },
  ];
  it.each(broken)('rejects $name', ({ text, message }) => {
    if (text !== null) injectSiteScript(text);
    expect(() => readSiteConfig()).toThrow(SiteConfigError);
    expect(() => readSiteConfig()).toThrow(message);
  });
});
