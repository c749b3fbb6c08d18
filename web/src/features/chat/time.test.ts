import { describe, expect, it } from 'vitest';
import { interpolate, type MessageKey, type MessageParams } from '@/i18n/catalog';
import en from '@/i18n/en.json';
import fr from '@/i18n/fr.json';
import chatEn from '@/i18n/sections/chat.en.json';
import chatFr from '@/i18n/sections/chat.fr.json';
import { closedText } from './views';
import { localDateTime, messageTime, reopening } from './time';

const catalogs = { en: { ...en, ...chatEn }, fr: { ...en, ...chatEn, ...fr, ...chatFr } } as Record<'en' | 'fr', Record<string, string>>;
const tOf = (language: 'en' | 'fr') => (key: MessageKey, params?: MessageParams) => interpolate(catalogs[language][key] ?? key, params);
const nb = '\u00a0';

describe('closed text: when chat reopens, in the province local time', () => {
  // Sunday 29 November 2026, 10:00 in Toronto (GUICHET_DEV_NOW of the browser test).
  const sunday = new Date('2026-11-29T15:00:00Z');
  const toronto = { reason: 'closed' as const, timeZone: 'America/Toronto' };

  // Saturday 28 November 2026, 18:00 in Toronto, after Saturday's hours.
  const saturday = new Date('2026-11-28T23:00:00Z');

  it('Monday at 8 in English and French; on the Sunday it is tomorrow', () => {
    const chat = { ...toronto, nextOpen: '2026-11-30T08:00:00-05:00' };
    expect(closedText(tOf('en'), chat, saturday, 'en')).toBe(`We're back Monday at 8${nb}a.m.`);
    expect(closedText(tOf('fr'), chat, saturday, 'fr')).toBe(`De retour lundi à 8${nb}h`);
    expect(closedText(tOf('en'), chat, sunday, 'en')).toBe(`We're back tomorrow at 8${nb}a.m.`);
    expect(closedText(tOf('fr'), chat, sunday, 'fr')).toBe(`De retour demain à 8${nb}h`);
  });

  it("nl's half hours: 8:30 a.m., 8 h 30, in St. John's time", () => {
    const chat = { reason: 'closed' as const, timeZone: 'America/St_Johns', nextOpen: '2026-11-30T08:30:00-03:30' };
    expect(closedText(tOf('en'), chat, saturday, 'en')).toBe(`We're back Monday at 8:30${nb}a.m.`);
    expect(closedText(tOf('fr'), chat, saturday, 'fr')).toBe(`De retour lundi à 8${nb}h${nb}30`);
  });

  it('today and tomorrow by the province calendar, not UTC', () => {
    // 05:00 on Monday in Toronto: opens today.
    const early = new Date('2026-11-30T10:00:00Z');
    expect(closedText(tOf('en'), { ...toronto, nextOpen: '2026-11-30T08:00:00-05:00' }, early, 'en')).toBe(`We're back today at 8${nb}a.m.`);
    expect(closedText(tOf('fr'), { ...toronto, nextOpen: '2026-11-30T08:00:00-05:00' }, early, 'fr')).toBe(`De retour aujourd’hui à 8${nb}h`);
    // 22:00 on Sunday in Toronto is already Monday in UTC: Monday is still tomorrow.
    const late = new Date('2026-11-30T03:00:00Z');
    expect(closedText(tOf('en'), { ...toronto, nextOpen: '2026-11-30T08:00:00-05:00' }, late, 'en')).toBe(`We're back tomorrow at 8${nb}a.m.`);
    expect(closedText(tOf('fr'), { ...toronto, nextOpen: '2026-11-30T08:00:00-05:00' }, late, 'fr')).toBe(`De retour demain à 8${nb}h`);
  });

  it('Saturday at 9 from a Friday evening, two days on', () => {
    const thursday = new Date('2026-11-26T23:30:00Z'); // 18:30 Thursday in Toronto
    expect(reopening('2026-11-28T09:00:00-05:00', thursday, 'America/Toronto', 'en')).toEqual({ day: 6, time: `9${nb}a.m.` });
  });

  it('no next opening: says why', () => {
    expect(closedText(tOf('en'), { reason: 'no-agent', timeZone: 'America/Toronto', nextOpen: null }, sunday, 'en')).toBe('No agent is available right now.');
    expect(closedText(tOf('fr'), { reason: 'no-hours', timeZone: 'America/Toronto', nextOpen: null }, sunday, 'fr')).toBe('Le clavardage n’est pas offert dans votre province.');
    expect(reopening('not a time', sunday, 'America/Toronto', 'en')).toBeNull();
  });
});

describe('message times', () => {
  it('in the province time zone and the language', () => {
    expect(localDateTime(new Date('2026-11-30T13:05:00Z'), 'America/Toronto')).toEqual({ date: '2026-11-30', time: '08:05' });
    expect(messageTime('2026-11-30T18:30:00Z', 'America/Toronto', 'en')).toBe(`1:30${nb}p.m.`);
    expect(messageTime('2026-11-30T18:30:00Z', 'America/Toronto', 'fr')).toBe(`13${nb}h${nb}30`);
    expect(messageTime('2026-11-30T12:00:00Z', 'America/St_Johns', 'fr')).toBe(`8${nb}h${nb}30`);
    expect(messageTime('garbage', 'America/Toronto', 'en')).toBe('');
  });
});
