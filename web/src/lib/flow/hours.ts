import type { components } from '@/lib/api/schema';
import type { Language } from '@/lib/site/types';

// Opening hours of the call-or-chat cards (spec §2.6, §9): weekdays, then
// Saturday, then Sunday (always closed), in the province's local time.

export type Hours = components['schemas']['Hours'];
type Span = components['schemas']['Span'];

/** "08:00" as the language writes it: "8 a.m.", "8:30 p.m." in English; "8 h", "20 h 30" in French. */
export function formatTime(time: string, language: Language): string | null {
  const match = /^(\d{1,2}):(\d{2})$/.exec(time);
  if (!match) return null;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  if (hour > 24 || minute > 59) return null;
  const mm = String(minute).padStart(2, '0');
  if (language === 'fr') return minute === 0 ? `${hour}\u00a0h` : `${hour}\u00a0h\u00a0${mm}`;
  const suffix = hour < 12 || hour === 24 ? 'a.m.' : 'p.m.';
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  return `${h12}${minute === 0 ? '' : `:${mm}`}\u00a0${suffix}`;
}

export interface HoursLine {
  days: 'weekdays' | 'saturday' | 'sunday';
  /** Opening and closing time as written in the language; null when closed. */
  open: string | null;
  close: string | null;
}

function line(days: HoursLine['days'], span: Span | null, language: Language): HoursLine {
  const open = span ? formatTime(span.open, language) : null;
  const close = span ? formatTime(span.close, language) : null;
  return open && close ? { days, open, close } : { days, open: null, close: null };
}

/** The three lines of the card, or none when the province has no hours (intact). */
export function hoursLines(hours: Hours | null | undefined, language: Language): HoursLine[] {
  if (!hours) return [];
  return [line('weekdays', hours.weekdays, language), line('saturday', hours.saturday, language), line('sunday', null, language)];
}
