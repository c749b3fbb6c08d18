import type { components } from '@/lib/api/schema';

// The server injects SiteConfig into index.html; its shape is the contract in
// api/openapi.yaml (docs/architecture.md "Site configuration handed to the SPA").
export type SiteConfig = components['schemas']['SiteConfig'];
export type PublicBrand = components['schemas']['PublicBrand'];
export type PublicProvince = components['schemas']['PublicProvince'];
export type Language = SiteConfig['language'];
export type BrandId = PublicBrand['id'];
export type BrandTheme = PublicBrand['theme'];
export type BrandLinkName = keyof PublicBrand['links'];

export const languages: readonly Language[] = ['en', 'fr'];

export function isLanguage(value: unknown): value is Language {
  return value === 'en' || value === 'fr';
}
