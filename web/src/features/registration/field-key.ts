import { isMessageKey, type BaseKey } from '@/i18n/catalog';

/**
 * An error answer's message and field (400 VALIDATION {errorCode, messageKey,
 * field}; 2002 with the password rule's messageKey), when the catalogue has the key.
 */
export function fieldKey(data: unknown): { field: string; key: BaseKey } | null {
  if (typeof data !== 'object' || data === null) return null;
  const { errorCode, field, messageKey } = data as Record<string, unknown>;
  if (errorCode === undefined || typeof messageKey !== 'string' || !isMessageKey(messageKey)) return null;
  return { field: typeof field === 'string' ? field : '', key: messageKey };
}
