import { knowBaseKeys, type Messages } from '@/i18n/catalog';
import english from '@/i18n/en.json';
import consoleEn from '@/i18n/sections/console.en.json';
import type { Language } from '@/lib/site/types';

// The console's texts: the base catalogue (the shared form components' rule
// messages) and the console section (i18n/sections/console.*.json). English is
// in the entry; French arrives as its own chunks when chosen.

const STORAGE_KEY = 'guichet-console-language';

export function initialLanguage(): Language {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === 'en' || saved === 'fr') return saved;
  } catch {
    // storage refused: the browser's language decides
  }
  return navigator.language.toLowerCase().startsWith('fr') ? 'fr' : 'en';
}

export function saveLanguage(language: Language): void {
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch {
    // not kept: the next visit starts from the browser's language
  }
}

knowBaseKeys(english);
const englishMessages: Messages = { ...english, ...consoleEn };

/** A promise React's use() reads at once: marked as React marks one it has seen settle. */
function settled<T>(promise: Promise<T>): Promise<T> {
  promise.then(
    (value) => Object.assign(promise, { status: 'fulfilled', value }),
    () => undefined,
  );
  return promise;
}

const loading = new Map<Language, Promise<Messages>>([['en', settled(Promise.resolve(englishMessages))]]);

/** The console's messages in a language; the same promise each time (French is fetched once). */
export function consoleMessages(language: Language): Promise<Messages> {
  let promise = loading.get(language);
  if (!promise) {
    promise = Promise.all([import('@/i18n/fr.json'), import('@/i18n/sections/console.fr.json')]).then(
      ([base, section]): Messages => ({ ...englishMessages, ...base.default, ...section.default }),
    );
    promise.catch(() => loading.delete(language));
    loading.set(language, promise);
  }
  return promise;
}
