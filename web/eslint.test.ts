// @vitest-environment node
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import config, { featureBoundaries } from './eslint.config.js';

// The lint zones of eslint.config.js, run on sample files as if the
// features login and registration existed.
const eslint = new ESLint({
  cwd: import.meta.dirname,
  overrideConfigFile: true,
  overrideConfig: [...config, ...featureBoundaries(['login', 'registration'])],
});

async function reported(rule: string, filePath: string, source: string): Promise<boolean> {
  const [result] = await eslint.lintText(`${source}\nexport {};\n`, { filePath });
  return (result?.messages ?? []).some((m) => m.ruleId === rule);
}

const restricted = async (filePath: string, source: string) =>
  (await reported('no-restricted-imports', filePath, source)) || (await reported('no-restricted-syntax', filePath, source));

describe('lint zones: features, src/app, shared code, the console', () => {
  const cases = [
    { file: 'src/features/login/routes/login.tsx', source: "import '@/features/registration/api/find';", blocked: true },
    { file: 'src/features/login/routes/login.tsx', source: "import '@/features/registrationx/api';", blocked: true },
    { file: 'src/features/login/routes/login.tsx', source: "import '../../registration/api/find';", blocked: true },
    { file: 'src/features/login/routes/login.tsx', source: "import '../api/login';", blocked: true },
    { file: 'src/features/login/routes/login.tsx', source: "import '@/app/routes';", blocked: true },
    { file: 'src/features/login/routes/login.tsx', source: "import '@/features/login/api/login';", blocked: false },
    { file: 'src/features/login/routes/login.tsx', source: "import './login-form';", blocked: false },
    { file: 'src/features/login/routes/login.tsx', source: "import '@/lib/site/site-context';", blocked: false },
    { file: 'src/lib/analytics.ts', source: "import '@/features/login/api/login';", blocked: true },
    { file: 'src/components/shell/header.tsx', source: "import '../../features/login/x';", blocked: true },
    { file: 'src/lib/analytics.ts', source: "import '@/app/routes';", blocked: true },
    { file: 'src/app/routes.tsx', source: "import '@/features/login/routes/login';", blocked: false },
    { file: 'src/features/login/routes/login.tsx', source: "import '@/console/api';", blocked: true },
    { file: 'src/features/login/routes/login.tsx', source: "void import('@/features/registration/api/find');", blocked: true },
    { file: 'src/features/login/routes/login.tsx', source: "void import('@/features/login/api/login');", blocked: false },
    { file: 'src/components/shell/chat-bubble.tsx', source: "void import('@/features/chat/chat-widget');", blocked: true },
    { file: 'src/app/app.tsx', source: "void import('@/features/chat/chat-widget');", blocked: false },
    // The staff console: a zone of its own.
    { file: 'src/console/pages/staff.tsx', source: "import '@/features/login/api/login';", blocked: true },
    { file: 'src/console/pages/staff.tsx', source: "import '@/app/routes';", blocked: true },
    { file: 'src/console/pages/staff.tsx', source: "import '@/main';", blocked: true },
    { file: 'src/console/pages/staff.tsx', source: "import '../../features/login/api/login';", blocked: true },
    { file: 'src/console/pages/staff.tsx', source: "import '../api';", blocked: true },
    { file: 'src/console/pages/staff.tsx', source: "import '@/console/api';", blocked: false },
    { file: 'src/console/app.tsx', source: "void import('@/features/login/api/login');", blocked: true },
    { file: 'src/console/app.tsx', source: "void import('./cobrowse/viewer');", blocked: false },
    { file: 'src/app/routes.tsx', source: "void import('@/console/app');", blocked: true },
    { file: 'src/console/pages/staff.tsx', source: "import './audit';", blocked: false },
    { file: 'src/console/pages/staff.tsx', source: "import '@/lib/api/client';", blocked: false },
    { file: 'src/console/pages/staff.tsx', source: "import '@/components/form/form';", blocked: false },
    { file: 'src/app/routes.tsx', source: "import '@/console/app';", blocked: true },
    { file: 'src/app/routes/home.tsx', source: "import '../../console/app';", blocked: true },
    { file: 'src/main.tsx', source: "import '@/console/main';", blocked: true },
    { file: 'src/lib/analytics.ts', source: "import '@/console/api';", blocked: true },
    { file: 'src/components/shell/header.tsx', source: "import '../../console/api';", blocked: true },
    { file: 'src/i18n/i18n.ts', source: "import '../main';", blocked: true },
    // A portal page redirects with lib/navigation's Redirect, never wouter's (issue 32); the console has wouter's.
    { file: 'src/features/login/routes/login.tsx', source: "import { Redirect } from 'wouter';", blocked: true },
    { file: 'src/app/routes.tsx', source: "import { Redirect, Route } from 'wouter';", blocked: true },
    { file: 'src/features/login/routes/login.tsx', source: "import { Link } from 'wouter';", blocked: false },
    { file: 'src/features/login/routes/login.tsx', source: "import { Redirect } from '@/lib/navigation/shown-location';", blocked: false },
    { file: 'src/console/app.tsx', source: "import { Redirect } from 'wouter';", blocked: false },
    { file: 'src/components/shell/header.tsx', source: "import { Redirect } from 'wouter';", blocked: true },
    { file: 'src/lib/navigation/shown-location.tsx', source: "import { Redirect } from 'wouter';", blocked: false },
    { file: 'src/lib/navigation/shown-location.tsx', source: "import '@/features/login/api/login';", blocked: true },
  ];
  it.each(cases)('$file: $source -> blocked $blocked', async ({ file, source, blocked }) => {
    expect(await restricted(file, source)).toBe(blocked);
  });
});

// import-x/no-cycle follows imports on disk, "@/" resolved through
// tsconfig.app.json: each sample imports a real module that imports the
// sample's own path back.
describe('import cycles', () => {
  const cases = [
    // src/lib/api/use-api.ts imports ./client.
    { file: 'src/lib/api/client.ts', source: "import { useApiClients } from '@/lib/api/use-api';\nuseApiClients();", cycle: true },
    // src/console/app.tsx imports ./api.
    { file: 'src/console/api.ts', source: "import { ConsoleApp } from '@/console/app';\nvoid ConsoleApp;", cycle: true },
    { file: 'src/console/api.ts', source: "import { consoleMessages } from '@/console/messages';\nvoid consoleMessages;", cycle: false },
  ];
  it.each(cases)('$file: $source -> cycle $cycle', async ({ file, source, cycle }) => {
    expect(await reported('import-x/no-cycle', file, source)).toBe(cycle);
  });
});
