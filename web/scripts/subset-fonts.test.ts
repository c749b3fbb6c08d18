import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The web font's faces are cut by subset-fonts.sh; fonts.css tells the
// browser which characters they hold. A range the files do not hold would
// have the browser fetch a face for nothing; a character they hold that the
// range leaves out would be drawn in the fallback. Issue 32: ≤ 15 KB a face.
const web = (file: string) => join(process.env.GUICHET_REPO_ROOT ?? '', 'web', file);

/** The code points of a list such as "U+0020-007E, U+00A0". */
function codePoints(list: string): Set<number> {
  const points = new Set<number>();
  for (const item of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^U\+([0-9A-F]{4,6})(?:-([0-9A-F]{4,6}))?$/i.exec(item);
    if (!m) throw new Error(`not a unicode range: ${item}`);
    const from = parseInt(m[1], 16);
    const to = m[2] ? parseInt(m[2], 16) : from;
    for (let c = from; c <= to; c++) points.add(c);
  }
  return points;
}

describe('the web font subset', () => {
  const script = readFileSync(web('scripts/subset-fonts.sh'), 'utf8');
  const css = readFileSync(web('src/styles/fonts.css'), 'utf8');
  const cut = codePoints(/^UNICODES='([^']+)'$/m.exec(script)?.[1] ?? '');
  const faces = [...css.matchAll(/@font-face\s*{([^}]*)}/g)].map((m) => m[1]).filter((f) => f.includes("'Source Sans 3';"));

  it('fonts.css gives each face exactly the characters subset-fonts.sh keeps', () => {
    expect(cut.size).toBeGreaterThan(190);
    expect(faces).toHaveLength(2);
    for (const face of faces) {
      const range = /unicode-range:([^;]+);/.exec(face)?.[1] ?? '';
      expect([...codePoints(range)].sort((a, b) => a - b)).toEqual([...cut].sort((a, b) => a - b));
    }
  });

  it('keeps every character of the English and French messages', () => {
    const files = readdirSync(web('src/i18n'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(10);
    const messages = files.map((f) => readFileSync(web(`src/i18n/${f}`), 'utf8')).join('');
    const missing = [...new Set(messages)].filter((ch) => ch >= ' ' && !cut.has(ch.codePointAt(0) ?? 0));
    expect(missing).toEqual([]);
  });

  it('weighs 15 KB at most a face', () => {
    for (const face of faces) {
      const file = /url\('\.\/(fonts\/[^']+)'\)/.exec(face)?.[1] ?? '';
      expect(statSync(web(`src/styles/${file}`)).size).toBeLessThanOrEqual(15 * 1024);
    }
  });
});
