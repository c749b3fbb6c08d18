// @vitest-environment node
// Runs testdata/rules/common/forms.json, as internal/rules common_test.go does.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoPath } from '@/test/repo';
import { commonForms, keyboardWalk } from './common-forms';

interface FormsFile {
  cases: { in: string; forms: string[]; walks: string[]; note?: string }[];
}

const file = JSON.parse(readFileSync(repoPath('testdata', 'rules', 'common', 'forms.json'), 'utf8')) as FormsFile;

describe('common-password forms', () => {
  it('has at least 40 cases', () => {
    expect(file.cases.length).toBeGreaterThanOrEqual(40);
  });
  file.cases.forEach((c, i) => {
    it(`${i}: ${JSON.stringify(c.in)}${c.note ? ` (${c.note})` : ''}`, () => {
      const forms = commonForms(c.in);
      expect(forms).toEqual(c.forms);
      expect(forms.filter(keyboardWalk)).toEqual(c.walks);
    });
  });
});
