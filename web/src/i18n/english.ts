import en from './en.json';
import type { BaseKey } from './catalog';

/**
 * The English base catalogue: the chunk catalog.ts loads for an English
 * page (a French page never downloads it), and the tests' English. The
 * console's entry imports en.json itself: were this module in its static
 * graph, the portal's import() of it would need the bundler's runtime chunk.
 */
export const english: Record<BaseKey, string> = en;
