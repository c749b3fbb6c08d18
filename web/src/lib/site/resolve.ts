import { isLanguage, type Language, type PublicBrand } from './types';

// TypeScript mirror of the Go resolution rules (internal/brand/resolve.go);
// both run testdata/resolution/vectors.json so the server and the SPA agree.
// Values are compared after lowering A-Z only, never trimmed.

export type ResolvableBrand = Pick<PublicBrand, 'defaultProvince' | 'provinces'>;

export interface ResolutionInput {
  query?: { province?: string | null; lang?: string | null };
  cookies?: { province?: string | null; language?: string | null };
}

export interface Resolution {
  province: string;
  language: Language;
}

/** The language used when nothing else applies. */
export const FALLBACK_LANGUAGE: Language = 'en';

/** Lowers A-Z only, as Go's asciiLower does, whatever Unicode case rules say. */
function asciiLower(value: string | null | undefined): string {
  return (value ?? '').replace(/[A-Z]/g, (c) => c.toLowerCase());
}

function offeredProvince(brand: ResolvableBrand, key: string) {
  const lowered = asciiLower(key);
  return brand.provinces.find((p) => p.key === lowered);
}

/** Province: ?province=, else the province cookie, else the brand default. Hidden provinces count. */
export function resolveProvince(brand: ResolvableBrand, query?: string | null, cookie?: string | null): string {
  for (const value of [query, cookie]) {
    const province = offeredProvince(brand, value ?? '');
    if (province) return province.key;
  }
  return brand.defaultProvince;
}

/**
 * Language in a resolved province: ?lang=, else the language cookie, else the
 * province's first language. A province the brand does not offer reads as
 * the brand's default province.
 */
export function resolveLanguage(
  brand: ResolvableBrand,
  province: string,
  query?: string | null,
  cookie?: string | null,
): Language {
  const spoken = (offeredProvince(brand, province) ?? offeredProvince(brand, brand.defaultProvince))?.languages ?? [];
  for (const value of [query, cookie]) {
    const lowered = asciiLower(value);
    if (isLanguage(lowered) && spoken.includes(lowered)) return lowered;
  }
  return spoken[0] ?? FALLBACK_LANGUAGE;
}

/** Resolves province then language; values the brand does not offer fall back, never fail. */
export function resolve(brand: ResolvableBrand, input: ResolutionInput): Resolution {
  const province = resolveProvince(brand, input.query?.province, input.cookies?.province);
  const language = resolveLanguage(brand, province, input.query?.lang, input.cookies?.language);
  return { province, language };
}
