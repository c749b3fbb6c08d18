import { use, useMemo, type ReactNode } from 'react';
import type { Language } from '@/lib/site/types';
import type { SectionKey } from './catalog';
import { MessagesContext } from './i18n';

// Message sections (sections/<name>.<lang>.json): the texts of one lazy
// feature, fetched with it, so the login route's JavaScript carries neither
// them nor this loader. Their keys are MessageKeys (catalog.ts), read with
// useT() under a <MessageSection>. A page fetches its language's file
// alone: a test keeps each language's keys equal to English's.

export type SectionName = 'registration' | 'smartRegistration' | 'chat' | 'cobrowse' | 'oidc' | 'security';
type SectionMessages = Partial<Record<SectionKey, string>>;

// The console's sections (console.*.json) belong to the console's entry (src/console), never to the portal's chunks.
const sectionCatalogs = import.meta.glob<SectionMessages>(['./sections/*.json', '!./sections/console.*.json'], { import: 'default' });
const loading = new Map<string, Promise<SectionMessages>>();

/** A section's messages in a language (every language's file has every key of the section); the same promise each time. */
export function loadSection(section: SectionName, language: Language): Promise<SectionMessages> {
  const id = `${section}:${language}`;
  let promise = loading.get(id);
  if (!promise) {
    const load = sectionCatalogs[`./sections/${section}.${language}.json`];
    const loaded = load ? load() : Promise.resolve({});
    // Marked as React marks a promise it has read, so use() of a loaded section does not suspend.
    loaded.then(
      (value) => Object.assign(loaded, { status: 'fulfilled', value }),
      () => loading.delete(id),
    );
    loading.set(id, loaded);
    promise = loaded;
  }
  return promise;
}

/** Adds a section's messages to those of the surrounding provider, suspending while the section loads. */
export function MessageSection({ name, language, children }: { name: SectionName; language: Language; children: ReactNode }) {
  const parent = use(MessagesContext);
  // Always through use(), so a render that suspended calls it again when it resumes.
  const section = use(loadSection(name, language));
  const messages = useMemo(() => ({ ...parent, ...section }), [parent, section]);
  return <MessagesContext value={messages}>{children}</MessagesContext>;
}
