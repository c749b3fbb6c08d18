import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { repoPath } from '@/test/repo';

// schema.d.ts is generated from api/openapi.yaml; this fails when the two
// have drifted apart. It runs the same command as `npm run gen:api`.
it('schema.d.ts matches api/openapi.yaml', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'guichet-schema-'));
  try {
    const fresh = join(dir, 'schema.d.ts');
    const cli = repoPath('web/node_modules/openapi-typescript/bin/cli.js');
    execFileSync(process.execPath, [cli, repoPath('api/openapi.yaml'), '-o', fresh], { stdio: 'pipe' });
    const committed = readFileSync(repoPath('web/src/lib/api/schema.d.ts'), 'utf8');
    expect(committed === readFileSync(fresh, 'utf8'), 'src/lib/api/schema.d.ts is stale: run `npm run gen:api` in web/').toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
