// Spec §9's browser-side attempt limits. They spare the visitor; the server
// enforces its own limits whatever the browser counts.

/**
 * A random limit of 3 to 6 failed attempts, drawn once per page visit
 * (spec §4.3 for the login, §4.4 for the reset code).
 */
export function randomAttemptLimit(random: () => number = Math.random): number {
  return 3 + Math.min(3, Math.floor(random() * 4));
}
