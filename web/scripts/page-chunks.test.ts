import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeAsides, routeImports, routeSections } from './page-chunks';

// The repository's root, as vite.config.ts gives it to the tests.
const src = (file: string) => readFileSync(join(process.env.GUICHET_REPO_ROOT ?? '', 'web/src/app', file), 'utf8');

describe('routeImports (what index.html preloads per page)', () => {
  it('finds the chunk of every route pattern of routes.tsx (paths.json), and of the not-found page', () => {
    const routes = routeImports(src('routes.tsx'));
    const { paths } = JSON.parse(src('paths.json')) as { paths: string[] };
    expect([...routes.keys()].sort()).toEqual([...paths, '*'].sort());
    expect(routes.get('/')).toBe('@/features/login/routes/login');
    expect(routes.get('*')).toBe('./routes/not-found');
  });

  it('reads an entry a formatter spread over several lines', () => {
    const source = `const Long = lazyPage(\n  () => import('@/features/x/routes/long'),\n);\nconst pageRoutes = [\n  {\n    path: '/create-an-account/x',\n    category: 'registration',\n    page: Long,\n  },\n];`;
    expect([...routeImports(source)]).toEqual([['/create-an-account/x', '@/features/x/routes/long']]);
  });

  it('refuses a page that is not a lazyPage import, rather than preloading nothing', () => {
    const source = `const A = lazy(() => import('./a'));\nexport const pageRoutes = [{ path: '/a', category: 'x', page: A }];`;
    expect(() => routeImports(source)).toThrow(/page A of \/a/);
  });
});

describe('routeSections (the message sections index.html preloads per page)', () => {
  it('reads the sections each route names, and none for a route without', () => {
    const sections = routeSections(src('routes.tsx'));
    expect(sections.get('/my-account')).toEqual(['security', 'oidc']);
    expect(sections.get('/registration/identification')).toEqual(['registration']);
    expect(sections.get('/create-an-account/identification/account-type')).toEqual(['smartRegistration']);
    expect(sections.has('/')).toBe(false);
  });

  it('reads an entry a formatter spread over several lines', () => {
    const source = `const pageRoutes = [\n  {\n    path: '/x',\n    category: 'account',\n    page: X,\n    sections: [\n      'security',\n      "oidc",\n    ],\n  },\n];`;
    expect([...routeSections(source)]).toEqual([['/x', ['security', 'oidc']]]);
  });
});

describe('routeAsides (the pages whose promo image index.html preloads)', () => {
  it('reads the entry pages that show the promo panel, and no other', () => {
    expect([...routeAsides(src('routes.tsx'))].sort()).toEqual(
      ['/', '/create-an-account/identification/account-type', '/forgot', '/registration/identification'].sort(),
    );
  });

  it('reads an entry a formatter spread over several lines, and not a route without the flag', () => {
    const source = `const pageRoutes = [\n  {\n    path: '/x',\n    category: 'login',\n    page: X,\n    aside: true,\n  },\n  { path: '/y', category: 'login', page: Y },\n];`;
    expect([...routeAsides(source)]).toEqual(['/x']);
  });
});
