import type { RuleField, RuleKey } from './keys';

/**
 * What a rule returns: the normalized value to send, or the field and the
 * message key of the broken rule (the server answers 400 {"errorCode": key}
 * for the same input).
 */
export type RuleResult<T = string> =
  | { ok: true; value: T }
  | { ok: false; field: RuleField; key: RuleKey };

export function pass<T>(value: T): RuleResult<T> {
  return { ok: true, value };
}

export function fail<T = string>(field: RuleField, key: RuleKey): RuleResult<T> {
  return { ok: false, field, key };
}
