import { describe, expect, it } from 'vitest';
import { formatTime, hoursLines } from './hours';

const nb = '\u00a0';

describe('formatTime', () => {
  it.each([
    { time: '08:00', en: `8${nb}a.m.`, fr: `8${nb}h` },
    { time: '08:30', en: `8:30${nb}a.m.`, fr: `8${nb}h${nb}30` },
    { time: '12:00', en: `12${nb}p.m.`, fr: `12${nb}h` },
    { time: '00:00', en: `12${nb}a.m.`, fr: `0${nb}h` },
    { time: '17:00', en: `5${nb}p.m.`, fr: `17${nb}h` },
    { time: '20:05', en: `8:05${nb}p.m.`, fr: `20${nb}h${nb}05` },
    { time: '24:00', en: `12${nb}a.m.`, fr: `24${nb}h` },
    { time: '25:00', en: null, fr: null },
    { time: '08:60', en: null, fr: null },
    { time: '8h', en: null, fr: null },
    { time: '', en: null, fr: null },
  ])('$time', ({ time, en, fr }) => {
    expect(formatTime(time, 'en')).toBe(en);
    expect(formatTime(time, 'fr')).toBe(fr);
  });
});

describe('hoursLines', () => {
  it('weekdays, Saturday and a closed Sunday', () => {
    const hours = { weekdays: { open: '08:00', close: '20:00' }, saturday: { open: '09:00', close: '17:00' } };
    expect(hoursLines(hours, 'en')).toEqual([
      { days: 'weekdays', open: `8${nb}a.m.`, close: `8${nb}p.m.` },
      { days: 'saturday', open: `9${nb}a.m.`, close: `5${nb}p.m.` },
      { days: 'sunday', open: null, close: null },
    ]);
  });

  it('closed on Saturday when the province has no Saturday hours', () => {
    const hours = { weekdays: { open: '08:00', close: '18:00' }, saturday: null };
    expect(hoursLines(hours, 'fr')).toEqual([
      { days: 'weekdays', open: `8${nb}h`, close: `18${nb}h` },
      { days: 'saturday', open: null, close: null },
      { days: 'sunday', open: null, close: null },
    ]);
  });

  it('no lines for a province without hours (intact)', () => {
    expect(hoursLines(null, 'en')).toEqual([]);
    expect(hoursLines(undefined, 'fr')).toEqual([]);
  });

  it('a span it cannot read shows as closed rather than as nonsense', () => {
    expect(hoursLines({ weekdays: { open: 'x', close: '18:00' }, saturday: null }, 'en')[0]).toEqual({
      days: 'weekdays',
      open: null,
      close: null,
    });
  });
});
