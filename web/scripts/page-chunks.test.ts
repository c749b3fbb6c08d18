import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routeImports } from './page-chunks';

const src = (file: string) => readFileSync(new URL(`../src/app/${file}`, import.meta.url), 'utf8');

describe('routeImports (what index.html preloads per page)', () => {
  it('finds the chunk of every route pattern of routes.tsx (paths.json), and of the not-found page', () => {
    const routes = routeImports(src('routes.tsx'));
    const { paths } = JSON.parse(src('paths.json')) as { paths: string[] };
    expect([...routes.keys()].sort()).toEqual([...paths, '*'].sort());
    expect(routes.get('/')).toBe('@/features/login/routes/login');
    expect(routes.get('*')).toBe('./routes/not-found');
  });

  it('refuses a page that is not a lazyPage import, rather than preloading nothing', () => {
    const source = `const A = lazy(() => import('./a'));\nexport const pageRoutes = [{ path: '/a', category: 'x', page: A }];`;
    expect(() => routeImports(source)).toThrow(/page A of \/a/);
  });
});
