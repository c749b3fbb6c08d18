import { createContext, use, useCallback, useEffect, useMemo, type ReactNode } from 'react';
import type { Language } from '@/lib/site/types';
import {
  english,
  interpolate,
  loadedMessages,
  loadMessages,
  loadSection,
  type Message,
  type MessageKey,
  type MessageParams,
  type Messages,
  type SectionName,
} from './catalog';

export type Translate = (key: MessageKey, params?: MessageParams) => string;

const MessagesContext = createContext<Messages>(english);

/**
 * Provides the catalogue of a brand and language. While another language
 * loads it suspends; language changes run in a transition, so the current
 * text stays on screen meanwhile. Keeps <html lang> in step with the text.
 */
export function I18nProvider({ brand, language, children }: { brand: string; language: Language; children: ReactNode }) {
  const messages = loadedMessages(brand, language) ?? use(loadMessages(brand, language));
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);
  return <MessagesContext value={messages}>{children}</MessagesContext>;
}

/**
 * Adds a section's messages (a lazy feature's texts) to those of the
 * surrounding provider, suspending while the section loads.
 */
export function MessageSection({ name, language, children }: { name: SectionName; language: Language; children: ReactNode }) {
  const parent = use(MessagesContext);
  // Always through use(), so a render that suspended calls it again when it resumes.
  const section = use(loadSection(name, language));
  const messages = useMemo(() => ({ ...parent, ...section }), [parent, section]);
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
