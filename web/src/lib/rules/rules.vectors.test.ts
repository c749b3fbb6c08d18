// @vitest-environment node
// Runs every vector of testdata/rules (the Go tests run the same files):
// a rule that disagrees with internal/rules fails here and there.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoPath } from '@/test/repo';
import { checkDateOfBirth } from './date-of-birth';
import { checkDriverLicence } from './driver-licence';
import { checkEmail } from './email';
import { checkEmailConfirmation } from './email-confirmation';
import { RULE_KEYS } from './keys';
import { checkLoginPassword } from './login-password';
import { checkFirstName, checkLastName } from './names';
import { checkPassword } from './password';
import { checkPasswordConfirmation } from './password-confirmation';
import { checkPhone } from './phone';
import { checkPin } from './pin';
import { checkPolicyNumber, type PolicyFormat } from './policy-number';
import { checkPostalCode } from './postal-code';
import type { RuleResult } from './result';
import { checkSecurityCode } from './security-code';
import { checkTerms } from './terms';

interface Params {
  email?: string;
  password?: string;
  required?: boolean;
  format?: PolicyFormat;
  today?: string;
  province?: string;
  ubi?: boolean;
}

interface Case {
  in: string | boolean;
  repeat?: number;
  out?: string | boolean;
  key?: string;
  params?: Params;
  serverOnly?: boolean;
  note?: string;
}

interface VectorFile {
  rule: string;
  params: Params;
  pass: Case[];
  fail: Case[];
}

interface KeysFile {
  keys: string[];
  rules: { rule: string; field: string; keys: string[] }[];
}

const dir = repoPath('testdata', 'rules');
const keysFile = JSON.parse(readFileSync(`${dir}/keys.json`, 'utf8')) as KeysFile;
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.json') && name !== 'keys.json')
  .map((name) => ({ name, file: JSON.parse(readFileSync(`${dir}/${name}`, 'utf8')) as VectorFile }));

function localDate(s: string | undefined): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s ?? '');
  if (!m) throw new Error(`params.today ${s} is not YYYY-MM-DD`);
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 12);
}

function apply(rule: string, input: string | boolean, p: Params): RuleResult<string | boolean> {
  if (rule === 'terms') {
    if (typeof input !== 'boolean') throw new Error('terms takes a boolean');
    return checkTerms(input);
  }
  if (typeof input !== 'string') throw new Error(`${rule} takes a string`);
  switch (rule) {
    case 'email':
      return checkEmail(input);
    case 'emailConfirmation':
      return checkEmailConfirmation(input, p.email ?? '');
    case 'phone':
      return checkPhone(input, p.required ?? false);
    case 'policyNumber':
      if (!p.format) throw new Error('policyNumber needs params.format');
      return checkPolicyNumber(input, p.format);
    case 'postalCode':
      return checkPostalCode(input);
    case 'password':
      return checkPassword(input, p.email ?? '');
    case 'passwordConfirmation':
      return checkPasswordConfirmation(input, p.password ?? '');
    case 'loginPassword':
      return checkLoginPassword(input);
    case 'securityCode':
      return checkSecurityCode(input);
    case 'pin':
      return checkPin(input);
    case 'firstName':
      return checkFirstName(input);
    case 'lastName':
      return checkLastName(input);
    case 'dateOfBirth':
      return checkDateOfBirth(input, localDate(p.today));
    case 'driverLicence':
      return checkDriverLicence(input, p.province ?? '', p.ubi ?? false);
  }
  throw new Error(`unknown rule ${rule}`);
}

function input(c: Case): string | boolean {
  return typeof c.in === 'string' && c.repeat ? c.in.repeat(c.repeat) : c.in;
}

function label(kind: string, i: number, c: Case): string {
  const shown = JSON.stringify(c.in);
  return `${kind} ${i}: ${shown.length > 60 ? `${shown.slice(0, 60)}…` : shown}${c.repeat ? ` x${c.repeat}` : ''}${c.note ? ` (${c.note})` : ''}`;
}

describe('rule vectors', () => {
  it('cover every rule of keys.json with at least 300 vectors', () => {
    expect(files.map((f) => f.file.rule).sort()).toEqual(keysFile.rules.map((r) => r.rule).sort());
    const total = files.reduce((n, f) => n + f.file.pass.length + f.file.fail.length, 0);
    expect(total).toBeGreaterThanOrEqual(300);
  });

  it('use the keys of keys.json, which are RULE_KEYS', () => {
    expect([...RULE_KEYS]).toEqual(keysFile.keys);
  });

  for (const { name, file } of files) {
    describe(file.rule, () => {
      const info = keysFile.rules.find((r) => r.rule === file.rule);
      it(`lives in ${file.rule}.json`, () => {
        expect(name).toBe(`${file.rule}.json`);
        expect(info).toBeDefined();
      });
      file.pass.forEach((c, i) => {
        it(label('pass', i, c), () => {
          const p = { ...file.params, ...c.params };
          const got = apply(file.rule, input(c), p);
          expect(got).toEqual({ ok: true, value: c.out });
          if (got.ok) expect(apply(file.rule, got.value, p)).toEqual(got);
        });
      });
      file.fail.forEach((c, i) => {
        const run = c.serverOnly ? it.skip : it;
        run(label('fail', i, c), () => {
          const got = apply(file.rule, input(c), { ...file.params, ...c.params });
          expect(got).toEqual({ ok: false, field: info?.field, key: c.key });
        });
      });
    });
  }
});
