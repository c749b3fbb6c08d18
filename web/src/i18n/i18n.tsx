import { createContext, use, useCallback, useLayoutEffect, type ReactNode } from 'react';
import type { Language } from '@/lib/site/types';
import {
  interpolate,
  loadedMessages,
  loadMessages,
  type Message,
  type MessageKey,
  type MessageParams,
  type Messages,
} from './catalog';

export type Translate = (key: MessageKey, params?: MessageParams) => string;

/**
 * The messages of the page; a MessageSection (section.tsx) adds a feature's.
 * Outside a provider there are none, and t(key) reads as the key.
 */
export const MessagesContext = createContext<Messages>({} as Messages);

/**
 * Provides the catalogue of a brand and language. While another language
 * loads it suspends; language changes run in a transition, so the current
 * text stays on screen meanwhile. Keeps <html lang> in step with the text.
 */
export function I18nProvider({ brand, language, children }: { brand: string; language: Language; children: ReactNode }) {
  const messages = loadedMessages(brand, language) ?? use(loadMessages(brand, language));
  // In the commit that shows the text, before its paint: a passive effect
  // came a moment after it (the console's did the same; CI, session 25).
  useLayoutEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  return <MessagesContext value={messages}>{children}</MessagesContext>;
}

/** The t(key, params) function of the current language; a section key outside its section reads as the key. */
export function useT(): Translate {
  const messages = use(MessagesContext);
  return useCallback((key, params) => interpolate(messages[key] ?? key, params), [messages]);
}

/** The text of a message in the current language. */
export function messageText(t: Translate, message: Message): string {
  return typeof message === 'string' ? t(message) : t(message.key, message.params);
}
