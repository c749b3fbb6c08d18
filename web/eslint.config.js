import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Lint zones (style.md React 1 and 3). Two entries share src: the portal
// (src/main.tsx, src/app, src/features/<name>) and the staff console
// (src/console, its own page console.html); shared code lives in
// src/components, src/lib and src/i18n.
// - A feature imports its own files and shared code, nothing of another
//   feature, of src/app or of the console.
// - src/app and src/main.tsx import nothing of the console.
// - The console imports its own files and shared code, nothing of the portal.
// - Shared code imports neither entry.
// Inside a feature or the console, imports that leave a folder go through the
// "@/" alias, so the rules can tell where an import points from its text.
// import-x/no-cycle (resolving "@/" through the TypeScript resolver) refuses
// import cycles in both entries.

/**
 * The rules refusing imports whose text matches a pattern: static imports
 * (no-restricted-imports) and import() of a literal (lazy pages, chunks).
 * @param {{ regex: string; message: string }[]} patterns imports to refuse
 * @param {{ name: string; importNames: string[]; message: string }[]} [paths] names of a module to refuse
 * @returns {Partial<Record<string, import('eslint').Linter.RuleEntry>>}
 */
const restrictImports = (patterns, paths = []) => ({
  'no-restricted-imports': ['error', { patterns, paths }],
  'no-restricted-syntax': [
    'error',
    // esquery ends a regex at its first "/": spell it \x2F.
    ...patterns.map(({ regex, message }) => ({
      selector: `ImportExpression > Literal.source[value=/${regex.replaceAll('/', '\\x2F')}/]`,
      message,
    })),
  ],
});

/**
 * @param {string[]} features the folders under src/features
 * @returns {import('eslint').Linter.Config[]}
 */
export function featureBoundaries(features) {
  const parentImport = {
    regex: '^\\.\\./',
    message: 'Inside a feature, import other folders through @/features/<this feature>/..., not ../',
  };
  const appImport = { regex: '^@/app(/|$)', message: 'Features do not import src/app; the app imports features.' };
  // The portal's pages redirect only from the page shown (lib/navigation/shown-location.tsx, issue 32).
  const portalPaths = [
    {
      name: 'wouter',
      importNames: ['Redirect'],
      message: "The portal redirects with @/lib/navigation/shown-location's Redirect: a page being left must not redirect.",
    },
  ];
  const consoleImport = {
    regex: '^@/console(/|$)',
    message: 'The portal does not import the staff console; move what they share to src/components or src/lib.',
  };
  return [
    {
      files: ['src/{components,lib,i18n}/**/*.{ts,tsx}'],
      ignores: ['src/lib/navigation/shown-location.tsx'],
      rules: restrictImports(
        [
          { regex: '^@/(features|app|console)(/|$)', message: 'Shared code does not import features, src/app or the console.' },
          {
            regex: '^(\\.\\./)+(features|app|console|main)(/|$|\\.)',
            message: 'Shared code does not import features, src/app or the console.',
          },
        ],
        portalPaths,
      ),
    },
    {
      // The one module that wraps wouter's Redirect: the shared rule without the ban on it.
      files: ['src/lib/navigation/shown-location.tsx'],
      rules: restrictImports([
        { regex: '^@/(features|app|console)(/|$)', message: 'Shared code does not import features, src/app or the console.' },
      ]),
    },
    {
      files: ['src/main.tsx', 'src/app/**/*.{ts,tsx}'],
      rules: restrictImports(
        [consoleImport, { regex: '^(\\.\\./)+console(/|$)', message: consoleImport.message }],
        portalPaths,
      ),
    },
    {
      files: ['src/console/**/*.{ts,tsx}'],
      rules: restrictImports([
        {
          regex: '^\\.\\./',
          message: 'Inside the console, import other folders through @/console/..., not ../',
        },
        {
          regex: '^@/(features|app|main)(/|$|\\.)',
          message: 'The console does not import the portal (src/features, src/app); move what they share to src/components or src/lib.',
        },
      ]),
    },
    ...features.map((feature) => ({
      files: [`src/features/${feature}/**/*.{ts,tsx}`],
      rules: restrictImports([
        parentImport,
        appImport,
        consoleImport,
        {
          regex: `^@/features/(?!${feature}(/|$))`,
          message: `Feature ${feature} does not import another feature; move what they share to src/components or src/lib.`,
        },
      ], portalPaths),
    })),
  ];
}

const featuresDir = new URL('./src/features/', import.meta.url);
const features = existsSync(featuresDir)
  ? readdirSync(featuresDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
  : [];

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'src/lib/api/schema.d.ts'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    ...reactHooks.configs['recommended-latest'],
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    rules: {
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Node scripts: tsc (checkJs, tsconfig.node.json) checks their names.
    files: ['**/*.{js,mjs}'],
    rules: { 'no-undef': 'off' },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      // import-x reads the imported modules themselves: TypeScript files, parsed as such.
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: fileURLToPath(new URL('./tsconfig.app.json', import.meta.url)) }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  ...featureBoundaries(features),
);
