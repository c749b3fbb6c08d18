// @vitest-environment node
// What the JSON vectors cannot carry: lone surrogates (JSON turns them into
// U+FFFD for Go) and the exact byte limit, counted in UTF-8 as the server
// counts it.
import { describe, expect, it } from 'vitest';
import { checkEmail } from './email';
import { checkFirstName } from './names';
import { checkPassword } from './password';
import { checkPolicyNumber, policyFormatValid } from './policy-number';
import { checkSecurityCode } from './security-code';
import { collapseSpaces, MAX_INPUT_BYTES, trimSpace, tooLong, utf8Length, wellFormed } from './text';

describe('text', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['é', 2],
    ['€', 3],
    ['😀', 4],
  ])('utf8Length(%j) = %d', (s, n) => {
    expect(utf8Length(s)).toBe(n);
  });

  it('counts the byte limit in UTF-8', () => {
    expect(tooLong('é'.repeat(512))).toBe(false);
    expect(tooLong(`${'é'.repeat(512)}a`)).toBe(true);
    expect(tooLong('a'.repeat(MAX_INPUT_BYTES))).toBe(false);
    expect(tooLong('a'.repeat(MAX_INPUT_BYTES + 1))).toBe(true);
  });

  it('finds lone surrogates', () => {
    expect(wellFormed('a😀b')).toBe(true);
    expect(wellFormed('a\ud800b')).toBe(false);
    expect(wellFormed('\udc00')).toBe(false);
  });

  it('trims White_Space, not what String.prototype.trim trims', () => {
    expect(trimSpace('\u0085a\u00a0')).toBe('a');
    expect(trimSpace('\ufeffa')).toBe('\ufeffa');
    expect(collapseSpaces(' a \t\u3000 b ')).toBe('a b');
  });
});

describe('lone surrogates are refused like invalid UTF-8 on the server', () => {
  it.each([
    ['email', checkEmail('a\ud800@bc.co'), 'errorEmailFormat'],
    ['password', checkPassword('Green#Lamp42\udfff', ''), 'errorPasswordInvalidCharacter'],
    ['firstName', checkFirstName('Jean\ud800'), 'errorFirstNameFormat'],
    ['securityCode', checkSecurityCode('12345\ud800'), 'errorCodeFormat'],
  ])('%s', (_, got, key) => {
    expect(got).toMatchObject({ ok: false, key });
  });
});

describe('policyFormatValid', () => {
  it.each([
    [{ length: 7, mask: 'XXX-XXXX' }, true],
    [{ length: 9, mask: '' }, true],
    [{ length: 5, mask: '*_X-A9' }, true],
    [{ length: 0, mask: '' }, false],
    [{ length: 31, mask: '' }, false],
    [{ length: 7.5, mask: '' }, false],
    [{ length: 7, mask: 'XXX-XXX' }, false],
  ])('%j -> %s', (format, ok) => {
    expect(policyFormatValid(format)).toBe(ok);
    expect(checkPolicyNumber('ABCDEFG', format).ok).toBe(ok && format.length === 7);
  });
});
