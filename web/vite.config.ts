import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { pageChunks } from './scripts/page-chunks';

// web/embed.go embeds dist, which must hold a file even before the first
// build; the build empties dist, so it puts the tracked .keep back.
const keepDist: Plugin = {
  name: 'guichet-keep-dist',
  apply: 'build',
  writeBundle(options) {
    if (options.dir) writeFileSync(`${options.dir}/.keep`, '');
  },
};

export default defineConfig({
  plugins: [react(), keepDist, pageChunks(fileURLToPath(new URL('./src/app/routes.tsx', import.meta.url)))],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  build: {
    // The Go binary embeds web/dist (web/embed.go); hashed files under /assets/
    // are served with a long cache lifetime.
    outDir: 'dist',
    assetsDir: 'assets',
    emptyOutDir: true,
    target: 'es2022',
    // Two pages: the portal (index.html) and the staff console (console.html,
    // served on the console host only); neither imports the other's code.
    rollupOptions: {
      input: {
        index: fileURLToPath(new URL('./index.html', import.meta.url)),
        console: fileURLToPath(new URL('./console.html', import.meta.url)),
      },
      // Issue 32: a page's shared code in a few chunks rather than one per
      // module: over gzip each file costs its own dictionary (the
      // registration page's 18 files were 16.3 KB gzip, the same code in
      // one 11.9 KB). Three groups of modules that load together: the form
      // and flow kit of every form page, the identity fields (registration,
      // smart registration's identification), the registration's first
      // page's own. Only the matched modules (not their imports), so no
      // group pulls in the entry's code or another group's.
      output: {
        codeSplitting: {
          includeDependenciesRecursively: false,
          groups: [
            // What the groups below and the portal's entry share. Without it
            // these modules sat in the portal's entry chunk, which the groups
            // then imported: the console, which imports the form kit, ran the
            // portal's entry (main.tsx) and failed on a page without
            // #guichet-site. The build fails when the console would load the
            // portal's entry again (scripts/page-chunks.ts).
            { name: 'portal-core', test: /[\\/]src[\\/](lib[\\/]site[\\/](address|cookies|types|resolve|site-context|config|theme|tel)|i18n[\\/]section|lib[\\/]api[\\/]use-api|lib[\\/]flow[\\/](error-catalogue|roadblocks|session-store|state|start-call|previous-page)|lib[\\/]analytics|lib[\\/]cobrowse[\\/]start|app[\\/]page-focus|lib[\\/]navigation[\\/]page-key)\.tsx?$/ },
            // Its styles too, one stylesheet rather than three (each a render-blocking request before the first paint).
            { name: 'form-kit', test: /[\\/]src[\\/]((components[\\/]form[\\/](form|use-form|text-field)|components[\\/]form-aside[\\/]form-aside|lib[\\/]page-title|i18n[\\/]private-text|lib[\\/]cobrowse[\\/]privacy|lib[\\/]rules[\\/](text|result)|lib[\\/]flow[\\/](use-flow-response|soft-roadblock|contact|hours|use-flow-send|registration-guard))\.tsx?|(components[\\/]form[\\/]form|components[\\/]form-aside[\\/]form-aside|lib[\\/]flow[\\/]flow)\.css)$/ },
            // The small modules the sign-in, recovery, roadblock and account pages share (issue 32): one
            // file rather than up to ten of a few hundred bytes each. Over the plain http Lighthouse
            // measures (HTTP/1.1, six connections) each file before the first paint costs a round trip
            // of its own: the login page asked for 11 files of its own before (login and these), 3 now.
            { name: 'account-kit', test: /[\\/]src[\\/](components[\\/]form[\\/](email-field|password-field)|lib[\\/]rules[\\/](normalize-password|email|login-password|password-confirmation)|lib[\\/]flow[\\/](cookies|account-api|attempts|sso-form|reset-code|reset-state)|lib[\\/]webauthn[\\/]webauthn|lib[\\/]use-once)\.tsx?$/ },
            { name: 'identity-fields', test: /[\\/]src[\\/](components[\\/]form[\\/](date-of-birth-field|masked-field|mask|licence-province-field)|lib[\\/]rules[\\/](date-of-birth|policy-number|postal-code|driver-licence|names|phone|pin|security-code))\.tsx?$/ },
            { name: 'registration-start', test: /[\\/]src[\\/]features[\\/]registration[\\/](api|flow|field-key|use-registration-response|components[\\/](registration-page|identification)|routes[\\/]registration-gate)\.tsx?$/ },
          ],
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}', 'eslint.test.ts', 'scripts/**/*.test.ts'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
    // Above the waits' bound (src/test/setup.ts), so a slow machine fails a
    // test on what it waited for, not on the test's clock. A wait ends as
    // soon as what it waits for is there, so these bounds cost nothing when
    // tests pass; they are wide because CI shares two cores with the Go
    // tests and Chromium (load average above 9): the session-16 CI lost
    // the vitest lane there, the hooks (beforeAll preloading message
    // sections) had vitest's default 10 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Tests read the shared files of the repository (testdata/, api/).
    env: { GUICHET_REPO_ROOT: fileURLToPath(new URL('..', import.meta.url)) },
  },
});
