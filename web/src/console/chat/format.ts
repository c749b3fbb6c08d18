import { useEffect, useState } from 'react';

/** Seconds as m:ss (h:mm:ss from an hour on); negative counts as 0. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** Seconds between an instant and now (server clock: now + skew). */
export function waited(since: string, now: number): number {
  const start = Date.parse(since);
  return Number.isNaN(start) ? 0 : (now - start) / 1000;
}

/** The current time on the server's clock, read again every second. */
export function useServerNow(skew: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now + skew;
}

/** A date and time in the console's language. */
export function when(at: string, language: string): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return at;
  return new Intl.DateTimeFormat(language === 'fr' ? 'fr-CA' : 'en-CA', { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/** A time of day in the console's language. */
export function clock(at: string, language: string): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return '';
  return new Intl.DateTimeFormat(language === 'fr' ? 'fr-CA' : 'en-CA', { timeStyle: 'short' }).format(date);
}
