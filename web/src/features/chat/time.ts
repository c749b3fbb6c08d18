// Times of the chat in the province's local time (its time zone), written as
// the language writes them (lib/flow/hours.ts's formatTime: "8 a.m.", "8 h").

import { formatTime } from '@/lib/flow/hours';
import type { Language } from '@/lib/site/types';

const partsCache = new Map<string, Intl.DateTimeFormat>();

function parts(instant: Date, timeZone: string): Record<string, string> {
  let format = partsCache.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
    } catch {
      format = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    }
    partsCache.set(timeZone, format);
  }
  return Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]));
}

/** An instant's local date (YYYY-MM-DD) and time (HH:MM) in a time zone. */
export function localDateTime(instant: Date, timeZone: string): { date: string; time: string } {
  const p = parts(instant, timeZone);
  return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour === '24' ? '00' : p.hour}:${p.minute}` };
}

/** A message's time ("RFC 3339") in the province's local time, as the language writes it. */
export function messageTime(at: string, timeZone: string, language: Language): string {
  const instant = new Date(at);
  if (Number.isNaN(instant.getTime())) return '';
  return formatTime(localDateTime(instant, timeZone).time, language) ?? '';
}

export type ReopenDay = 'today' | 'tomorrow' | 0 | 1 | 2 | 3 | 4 | 5 | 6;

/**
 * When chat reopens, from the server's nextOpen (RFC 3339 in the province's
 * offset: its date and time are the province's local ones) and the server's
 * now: 'today', 'tomorrow' or the weekday (0 = Sunday), and the time as the
 * language writes it. Null when nextOpen is not such a time.
 */
export function reopening(nextOpen: string, now: Date, timeZone: string, language: Language): { day: ReopenDay; time: string } | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(nextOpen);
  if (!m) return null;
  const time = formatTime(`${m[4]}:${m[5]}`, language);
  if (!time) return null;
  const opens = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const today = localDateTime(now, timeZone).date.split('-').map(Number) as [number, number, number];
  const days = Math.round((opens - Date.UTC(today[0], today[1] - 1, today[2])) / 86_400_000);
  if (days === 0) return { day: 'today', time };
  if (days === 1) return { day: 'tomorrow', time };
  return { day: new Date(opens).getUTCDay() as ReopenDay, time };
}
