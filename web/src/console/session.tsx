import { createContext, use } from 'react';
import type { Language } from '@/lib/site/types';
import type { Me } from './api';

export interface ConsoleSession {
  /** undefined while the first GET /session runs; null: signed out. */
  me: Me | null | undefined;
  setMe(me: Me | null): void;
  /** A call found the session ended: /sign-in says so until the next sign-in. */
  ended: boolean;
  language: Language;
  setLanguage(language: Language): void;
}

export const SessionContext = createContext<ConsoleSession | null>(null);

export function useSession(): ConsoleSession {
  const session = use(SessionContext);
  if (!session) throw new Error('useSession outside the console app');
  return session;
}
