import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoPath } from '@/test/repo';

// Every string of the SPA's catalogues against docs/glossary.md, the one list
// of the portal's words (internal/notify/glossary_test.go reads the same file
// for what the server sends). Only `backticked` entries of its tables count:
// the "<Language>: never" columns are the words a string must not hold, the
// "<Language>" columns the approved phrases, inside which a word to avoid
// is allowed (« conseiller ou conseillère » passes where a bare « conseiller »
// fails).

type Lang = 'en' | 'fr';
type Words = { never: string[]; use: string[] };

const languageNames: Record<Lang, string> = { en: 'English', fr: 'French' };

function parseGlossary(markdown: string): Record<Lang, Words> {
  const words: Record<Lang, Words> = { en: { never: [], use: [] }, fr: { never: [], use: [] } };
  let header: string[] | null = null;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      header = null;
      continue;
    }
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    if (header === null) {
      header = cells;
      continue;
    }
    cells.forEach((cell, i) => {
      const column = header?.[i] ?? '';
      const items = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
      for (const lang of ['en', 'fr'] as const) {
        if (column === `${languageNames[lang]}: never`) words[lang].never.push(...items);
        if (column === languageNames[lang]) words[lang].use.push(...items);
      }
    });
  }
  return words;
}

/** A glossary entry as a pattern: whole words, any case, ' and ’ alike, any spaces alike, * any letters. */
function termPattern(term: string): RegExp {
  const body = term
    .split(/(\*|\s+|['’])/)
    .map((part) => {
      if (part === '*') return '\\p{L}*';
      if (/^\s+$/.test(part)) return '[\\s\\u00a0\\u202f]+';
      if (part === "'" || part === '’') return "['’]";
      return part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    })
    .join('');
  return new RegExp(`(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`, 'giu');
}

type Checker = (text: string) => string[];

const spans = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].map((m) => [m.index, m.index + m[0].length] as const);

/** The words to avoid that a text holds, except where they are part of an approved phrase. */
function checker({ never, use }: Words): Checker {
  const approved = use.map(termPattern);
  const forbidden = never.map((term) => ({ term, pattern: termPattern(term) }));
  return (text) => {
    const prose = text.replace(/\{\w+\}/g, ' ').replace(/https?:\/\/\S+/g, ' ');
    const allowed = approved.flatMap((pattern) => spans(pattern, prose));
    const covered = ([start, end]: readonly [number, number]) => allowed.some(([s, e]) => s <= start && end <= e);
    return forbidden.filter(({ pattern }) => spans(pattern, prose).some((span) => !covered(span))).map(({ term }) => term);
  };
}

const glossary = parseGlossary(readFileSync(repoPath('docs/glossary.md'), 'utf8'));
const check: Record<Lang, Checker> = { en: checker(glossary.en), fr: checker(glossary.fr) };

const i18nDir = repoPath('web/src/i18n');
const catalogueFiles = [
  'en.json',
  'fr.json',
  ...readdirSync(join(i18nDir, 'sections')).map((file) => `sections/${file}`),
  ...readdirSync(join(i18nDir, 'brands')).map((file) => `brands/${file}`),
];
const strings = catalogueFiles.flatMap((file) => {
  const lang: Lang = file.endsWith('fr.json') ? 'fr' : 'en';
  const messages = JSON.parse(readFileSync(join(i18nDir, file), 'utf8')) as Record<string, string>;
  return Object.entries(messages).map(([key, value]) => ({ where: `${file} ${key}`, lang, value }));
});

describe('docs/glossary.md', () => {
  it('gives words to avoid and approved phrases in both languages', () => {
    for (const lang of ['en', 'fr'] as const) {
      expect(glossary[lang].never.length, languageNames[lang]).toBeGreaterThan(10);
      expect(glossary[lang].use.length, languageNames[lang]).toBeGreaterThan(10);
    }
    expect(glossary.fr.never).toEqual(expect.arrayContaining(['agent', 'ouvr* une session', 'injoignable']));
  });

  it('catches the words and calques it lists, and lets its own phrases through', () => {
    const bad = [
      'Votre agent demande à voir les pages',
      'Dorénavant, ouvrez une session avec {username}.',
      'La transcription est en route vers {email}.',
      'Nous vous trouvons un conseiller.',
      'Lisez ce code à votre agent\u00a0:',
      'Le clavardage est injoignable.',
      'Entrez votre adresse e-mail',
      'Votre numéro de mobile',
      'Co-navigation',
      'Votre code de vérification',
    ];
    expect(bad.filter((text) => check.fr(text).length === 0)).toEqual([]);
    const good = [
      'Un conseiller ou une conseillère vous aidera.',
      'Connectez-vous avec {email}.',
      'Téléchargez l’application mobile',
      'Partager avec {agent}',
      'https://example.com/agent',
    ];
    expect(good.flatMap((text) => check.fr(text))).toEqual([]);
    expect(check.en('Please log in with your e-mail')).toEqual(['log in', 'e-mail']);
  });
});

describe('every catalogue string uses the glossary’s words', () => {
  it('finds the catalogues', () => {
    expect(strings.filter((s) => s.lang === 'fr').length).toBeGreaterThan(500);
  });

  it.each(strings)('$where', ({ lang, value }) => {
    expect(check[lang](value), value).toEqual([]);
  });
});
