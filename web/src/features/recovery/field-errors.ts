import { isMessageKey, type MessageKey } from '@/i18n/catalog';

/**
 * The message key the server gave a field in a 400 body (`fields`, e.g.
 * {"password": "errorPasswordCommon"}), when the catalogue has it.
 */
export function fieldKey(data: unknown, field: string): MessageKey | null {
  if (typeof data !== 'object' || data === null) return null;
  const fields = (data as Record<string, unknown>).fields;
  if (typeof fields !== 'object' || fields === null || !Object.hasOwn(fields, field)) return null;
  const key = (fields as Record<string, unknown>)[field];
  return typeof key === 'string' && isMessageKey(key) ? key : null;
}
