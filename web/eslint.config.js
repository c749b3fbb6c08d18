import { existsSync, readdirSync } from 'node:fs';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Feature boundaries (style.md React 1): a feature under src/features/<name>
// imports its own files, shared code (src/components, src/lib, src/i18n) and
// nothing of another feature or of src/app; shared code imports no feature.
// Inside a feature, imports that leave a folder go through the "@/" alias,
// so the rules can tell where an import points from its text.

/**
 * @param {{ regex: string; message: string }[]} patterns imports to refuse
 * @returns {import('eslint').Linter.RuleEntry}
 */
const restrictImports = (patterns) => ['error', { patterns }];

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
  return [
    {
      files: ['src/{components,lib,i18n}/**/*.{ts,tsx}'],
      rules: {
        'no-restricted-imports': restrictImports([
          { regex: '^@/(features|app)(/|$)', message: 'Shared code does not import features or src/app.' },
          { regex: '^(\\.\\./)+(features|app)(/|$)', message: 'Shared code does not import features or src/app.' },
        ]),
      },
    },
    ...features.map((feature) => ({
      files: [`src/features/${feature}/**/*.{ts,tsx}`],
      rules: {
        'no-restricted-imports': restrictImports([
          parentImport,
          appImport,
          {
            regex: `^@/features/(?!${feature}(/|$))`,
            message: `Feature ${feature} does not import another feature; move what they share to src/components or src/lib.`,
          },
        ]),
      },
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
  ...featureBoundaries(features),
);
