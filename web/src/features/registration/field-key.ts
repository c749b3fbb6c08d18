import { isMessageKey, type BaseKey } from '@/i18n/catalog';

/**
 * A 400 VALIDATION answer's field and message (the contract's
 * {errorCode: "VALIDATION", messageKey, field}), when the catalogue has the key.
 */
export function fieldKey(data: unknown): { field: string; key: BaseKey } | null {
  if (typeof data !== 'object' || data === null) return null;
  const { errorCode, field, messageKey } = data as Record<string, unknown>;
  if (errorCode !== 'VALIDATION' || typeof field !== 'string' || typeof messageKey !== 'string' || !isMessageKey(messageKey)) return null;
  return { field, key: messageKey };
}
