import { describe, expect, it } from 'vitest';
import { readCookies, SIX_MONTHS_SECONDS, writeCookie } from './cookies';

function fakeDocument(protocol: string) {
  const written: string[] = [];
  const doc = {
    location: { protocol },
    get cookie() {
      return '';
    },
    set cookie(value: string) {
      written.push(value);
    },
  };
  return { doc: doc as unknown as Document, written };
}

describe('writeCookie', () => {
  it('writes six months, Path=/, SameSite=Lax', () => {
    const { doc, written } = fakeDocument('http:');
    writeCookie('province', 'qc', undefined, doc);
    expect(SIX_MONTHS_SECONDS).toBe(15552000);
    expect(written).toEqual(['province=qc; Max-Age=15552000; Path=/; SameSite=Lax']);
  });

  it('adds Secure over https and encodes the value', () => {
    const { doc, written } = fakeDocument('https:');
    writeCookie('language', 'f r', 60, doc);
    expect(written).toEqual(['language=f%20r; Max-Age=60; Path=/; SameSite=Lax; Secure']);
  });

  it('is readable back from document.cookie', () => {
    writeCookie('language', 'fr');
    expect(readCookies().language).toBe('fr');
  });
});

describe('readCookies', () => {
  const cases = [
    { cookie: '', expected: {} },
    { cookie: 'province=qc; language=fr', expected: { province: 'qc', language: 'fr' } },
    { cookie: 'a=%E0%A4%A; b=1', expected: { b: '1' } },
    { cookie: 'novalue; =x; c=a=b', expected: { c: 'a=b' } },
  ];
  it.each(cases)('parses "$cookie"', ({ cookie, expected }) => {
    expect(readCookies({ cookie } as Document)).toEqual(expected);
  });
});
