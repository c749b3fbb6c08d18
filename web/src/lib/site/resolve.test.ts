import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoPath } from '@/test/repo';
import { belair, bna, servus } from '@/test/site-fixture';
import { resolve, type ResolutionInput } from './resolve';
import type { PublicBrand } from './types';

describe('resolve (fixture brands)', () => {
  const cases: { name: string; brand: PublicBrand; input: ResolutionInput; province: string; language: string }[] = [
    { name: 'nothing given: brand default and its first language', brand: belair, input: {}, province: 'on', language: 'en' },
    { name: 'query province wins over cookie', brand: belair, input: { query: { province: 'qc' }, cookies: { province: 'on' } }, province: 'qc', language: 'fr' },
    { name: 'cookie province when no query', brand: belair, input: { cookies: { province: 'qc' } }, province: 'qc', language: 'fr' },
    { name: 'upper-case values are lowered', brand: belair, input: { query: { province: 'QC', lang: 'EN' } }, province: 'qc', language: 'en' },
    { name: 'values are not trimmed', brand: belair, input: { query: { province: ' qc', lang: 'fr ' } }, province: 'on', language: 'en' },
    { name: 'unknown query province falls to the cookie', brand: belair, input: { query: { province: 'zz' }, cookies: { province: 'ab' } }, province: 'ab', language: 'en' },
    { name: 'province the brand does not offer falls to default', brand: servus, input: { query: { province: 'qc' } }, province: 'ab', language: 'en' },
    { name: 'hidden province still counts', brand: bna, input: { query: { province: 'ab' } }, province: 'ab', language: 'en' },
    { name: 'query lang wins over cookie', brand: belair, input: { query: { lang: 'fr' }, cookies: { language: 'en' } }, province: 'on', language: 'fr' },
    { name: 'cookie language when no query', brand: belair, input: { cookies: { language: 'fr' } }, province: 'on', language: 'fr' },
    { name: 'language the province lacks falls back', brand: belair, input: { query: { province: 'ab', lang: 'fr' } }, province: 'ab', language: 'en' },
    { name: 'unknown language falls to the cookie', brand: belair, input: { query: { lang: 'de' }, cookies: { language: 'fr' } }, province: 'on', language: 'fr' },
    { name: 'servus is English only', brand: servus, input: { query: { lang: 'fr' }, cookies: { language: 'fr' } }, province: 'ab', language: 'en' },
    { name: 'Unicode case rules are not applied', brand: belair, input: { query: { province: 'QÇ', lang: 'FR' } }, province: 'on', language: 'fr' },
  ];
  it.each(cases)('$name', ({ brand, input, province, language }) => {
    expect(resolve(brand, input)).toEqual({ province, language });
  });
});

// The shared vectors: the Go resolver (internal/brand) runs the same file.
// brands.json is each brand's PublicBrand, written by a Go test (-update).
const brandsFile = repoPath('testdata/resolution/brands.json');
const vectorsFile = repoPath('testdata/resolution/vectors.json');

interface Vector {
  brand: string;
  query: { province?: string; lang?: string };
  cookies: { province?: string; language?: string };
  expect: { province: string; language: string };
}

function loadBrands(): Map<string, PublicBrand> {
  const data = JSON.parse(readFileSync(brandsFile, 'utf8')) as PublicBrand[] | Record<string, PublicBrand>;
  const list = Array.isArray(data) ? data : Object.values(data);
  return new Map(list.map((b) => [b.id, b]));
}

describe.skipIf(!existsSync(brandsFile))('resolve (testdata/resolution/vectors.json)', () => {
  const present = existsSync(brandsFile);
  const vectors = present ? (JSON.parse(readFileSync(vectorsFile, 'utf8')) as Vector[]) : [];
  const brands = present ? loadBrands() : new Map<string, PublicBrand>();

  it('has vectors for every brand', () => {
    expect(new Set(vectors.map((v) => v.brand))).toEqual(new Set(brands.keys()));
  });

  it.each(vectors.map((v, i) => ({ ...v, i })))('vector $i: $brand $query $cookies', (vector) => {
    const brand = brands.get(vector.brand);
    expect(brand, `brand ${vector.brand} in brands.json`).toBeDefined();
    expect(resolve(brand!, { query: vector.query, cookies: vector.cookies })).toEqual(vector.expect);
  });
});
