import type { MessageKey } from '@/i18n/catalog';

/** The message of a server error code the page has no own message for. */
export function errorMessage(errorCode: string): MessageKey {
  switch (errorCode) {
    case 'NETWORK':
      return 'console.error.network';
    case 'FORBIDDEN_ROLE':
      return 'console.error.forbiddenRole';
    case 'FORBIDDEN_BRAND':
      return 'console.error.forbiddenBrand';
    case 'SIGN_IN_REQUIRED':
      return 'console.error.signInRequired';
    case 'NOT_FOUND':
      return 'console.error.notFound';
    case 'POLICY_NUMBER_NOT_FOUND':
      return 'console.invitation.noPerson';
    case 'POLICY_INACTIVE':
      return 'console.invitation.inactive';
    case 'TOO_LARGE':
      return 'console.import.tooLarge';
    case 'MAINTENANCE_EVERY_BRAND':
      return 'console.maintenance.everyBrand';
    case 'VALIDATION':
    case 'INVALID_FIELD':
      return 'console.error.validation';
    case 'RATE_LIMITED':
    case 'HTTP_429':
      return 'console.error.rateLimited';
    default:
      return 'console.error.generic';
  }
}
