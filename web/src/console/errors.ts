import type { MessageKey } from '@/i18n/catalog';
import { lookup } from '@/lib/lookup';

const messages: Record<string, MessageKey> = {
  NETWORK: 'console.error.network',
  FORBIDDEN_ROLE: 'console.error.forbiddenRole',
  FORBIDDEN_BRAND: 'console.error.forbiddenBrand',
  SIGN_IN_REQUIRED: 'console.error.signInRequired',
  NOT_FOUND: 'console.error.notFound',
  POLICY_NUMBER_NOT_FOUND: 'console.invitation.noPerson',
  POLICY_INACTIVE: 'console.invitation.inactive',
  TOO_LARGE: 'console.import.tooLarge',
  MAINTENANCE_EVERY_BRAND: 'console.maintenance.everyBrand',
  VALIDATION: 'console.error.validation',
  INVALID_FIELD: 'console.error.validation',
  RATE_LIMITED: 'console.error.rateLimited',
  HTTP_429: 'console.error.rateLimited',
};

/** The message of a server error code the page has no own message for. */
export function errorMessage(errorCode: string): MessageKey {
  return lookup(messages, errorCode) ?? 'console.error.generic';
}
