// The /roadblock group of spec §2.6. technical is also the group's root.

export const ROADBLOCK_PAGES = [
  'technical',
  'block',
  'token-expired',
  'two-factor',
  'forgot-password',
  'inconsistency',
  'temporary',
  'login-difficulties',
  'maintenance',
  'more-than-one-profile',
  'registration-difficulties',
  'no-options',
  'resend-code',
  'resend-email',
  'resend-reset-password',
  'pin-difficulties',
  'wrong-cellphone',
] as const;

export type RoadblockPage = (typeof ROADBLOCK_PAGES)[number];

export function isRoadblockPage(value: unknown): value is RoadblockPage {
  return typeof value === 'string' && (ROADBLOCK_PAGES as readonly string[]).includes(value);
}

/** The path of a roadblock page. */
export function roadblockPath(page: RoadblockPage): string {
  return `/roadblock/${page}`;
}
