// The forms of a password that are compared with common passwords, and the
// keyboard-walk check on them: internal/rules/common.go, run against the same
// vectors (testdata/rules/common/forms.json). The blocklist of common words
// stays on the server; the browser refuses walks only.
import { lowerAscii } from './text';

const SUBSTITUTIONS: Record<string, string> = { '0': 'o', '@': 'a', $: 's', '3': 'e', '5': 's', '7': 't' };

/**
 * Distinct forms of a normalized password: A-Z lower-cased; that up to its
 * last letter (trailing digits, symbols and spaces dropped); that with
 * 0 @ $ 3 5 7 read as o a s e s t (1, which may be i or l, is kept).
 */
export function commonForms(password: string): string[] {
  const lower = lowerAscii(password);
  const core = lower.replace(/\P{L}+$/u, '');
  const forms = [lower];
  for (const f of [core, core.replace(/[0@$357]/g, (c) => SUBSTITUTIONS[c] ?? c)]) {
    if (f !== forms[forms.length - 1]) forms.push(f);
  }
  return forms;
}

// Rows, columns one after another and two-row zig-zags of QWERTY and AZERTY,
// each also read backwards.
const LINES = [
  '1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm',
  '1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol0p', 'qazwsxedcrfvtgbyhnujmikolp',
  '1q2w3e4r5t6y7u8i9o0p', 'q1w2e3r4t5y6u7i8o9p0', 'qawsedrftgyhujikolp', 'azsxdcfvgbhnjmk',
  'azertyuiop', 'qsdfghjklm', 'wxcvbn', 'aqwzsxedcrfvtgbyhnujikolpm',
].flatMap((l) => [l, [...l].reverse().join('')]);

/** A run of 4 keys or more is a walk; 3-key runs ("wer", "tre") fill words. */
const MIN_RUN = 4;
/** Fewer than 4 letters and digits outside the walks: they are the password. */
const MAX_REMAINDER = 3;

/** Whether form is mostly keyboard walks (Go keyboardWalk). */
export function keyboardWalk(form: string): boolean {
  const cs = [...form];
  const n = cs.length;
  // covered[i]: most characters of cs[i:] in runs; a run's prefixes are runs.
  const covered: number[] = [];
  covered[n] = 0;
  for (let i = n - 1; i >= 0; i--) {
    let best = covered[i + 1] ?? 0;
    for (let j = i + MIN_RUN; j <= n; j++) {
      const run = cs.slice(i, j).join('');
      if (!LINES.some((l) => l.includes(run))) break;
      best = Math.max(best, j - i + (covered[j] ?? 0));
    }
    covered[i] = best;
  }
  const alnum = cs.filter((c) => /[\p{L}\p{Nd}]/u.test(c)).length;
  const walked = covered[0] ?? 0;
  return walked > 0 && alnum - walked <= MAX_REMAINDER;
}
