// @vitest-environment node
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import config, { featureBoundaries } from './eslint.config.js';

// The boundary rules of eslint.config.js, run on sample files as if the
// features login and registration existed.
const eslint = new ESLint({
  cwd: import.meta.dirname,
  overrideConfigFile: true,
  overrideConfig: [...config, ...featureBoundaries(['login', 'registration'])],
});

async function restricted(filePath: string, source: string): Promise<boolean> {
  const [result] = await eslint.lintText(`${source}\nexport {};\n`, { filePath });
  return (result?.messages ?? []).some((m) => m.ruleId === 'no-restricted-imports');
}

describe('feature boundaries', () => {
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
  ];
  it.each(cases)('$file: $source -> blocked $blocked', async ({ file, source, blocked }) => {
    expect(await restricted(file, source)).toBe(blocked);
  });
});
