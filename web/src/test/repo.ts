import { join } from 'node:path';

/** Absolute path of a file of the repository (vite.config.ts sets the root for tests). */
export function repoPath(...parts: string[]): string {
  const root = process.env.GUICHET_REPO_ROOT;
  if (!root) throw new Error('GUICHET_REPO_ROOT is not set: run the tests through vitest (web/vite.config.ts)');
  return join(root, ...parts);
}
