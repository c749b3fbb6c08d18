// @vitest-environment node
import { describe, expect, it } from 'vitest';
import en from '@/i18n/en.json';
import fr from '@/i18n/fr.json';
import { RULE_KEYS } from '@/lib/rules/keys';

// The form shows a broken rule's key through the catalogues: every key a
// rule can return needs a message in each language.
describe('rule messages', () => {
  it.each([...RULE_KEYS])('%s has an English and a French message', (key) => {
    expect(Object.hasOwn(en, key), `en.json lacks ${key}`).toBe(true);
    expect(Object.hasOwn(fr, key), `fr.json lacks ${key}`).toBe(true);
  });
});
