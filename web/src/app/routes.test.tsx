import { readFileSync } from 'node:fs';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { repoPath } from '@/test/repo';
import { renderApp } from '@/test/render';
import { siteConfig } from '@/test/site-fixture';
import { REGISTRATION_PAGES } from '@/lib/flow/registration-guard';
import { pageRoutes, redirectTarget } from './routes';

describe('redirectTarget (spec §2.1, as internal/httpapi/spa.go)', () => {
  const cases: { path: string; search: string; known?: boolean; target: string | null }[] = [
    { path: '/WAA', search: '', target: '/' },
    { path: '/WAA/', search: 'a=b', target: '/?a=b' },
    { path: '/WAA/not-found', search: 'x=1', target: '/not-found?x=1' },
    { path: '/WAA/create-an-account/step', search: '', target: '/create-an-account/step' },
    { path: '/WAA//evil.example/x', search: '', target: '/evil.example/x' },
    { path: '/WAAX', search: '', target: null },
    { path: '/registration', search: 'a=b&c=d', target: '/registration/identification?a=b&c=d' },
    { path: '/registration/', search: '', target: '/registration/identification' },
    { path: '/registration/identification', search: 'a=b', target: null },
    { path: '/create-an-account/zzz', search: 'a=b', target: '/not-found' },
    { path: '/create-an-account', search: '', target: '/not-found' },
    { path: '/create-an-account/known', search: '', known: true, target: null },
    { path: '/not-found', search: '', known: true, target: null },
    { path: '/zzz', search: 'q=1', target: null },
  ];
  it.each(cases)('$path?$search -> $target', ({ path, search, known = false, target }) => {
    expect(redirectTarget(path, search, known)).toBe(target);
  });
});

describe('registration', () => {
  it('routes every page of the guard module, and no other under /registration', () => {
    const routed = pageRoutes.filter((r) => r.path.startsWith('/registration/')).map((r) => r.path);
    expect(routed).toEqual(REGISTRATION_PAGES.map((page) => `/registration/${page}`));
  });

  it('/registration?a=b lands on identification, keeping the query string', async () => {
    await renderApp(siteConfig(), '/registration?a=b');
    await waitFor(() => expect(window.location.pathname + window.location.search).toBe('/registration/identification?a=b'));
    expect(await screen.findByRole('heading', { level: 1, name: 'Create your online account' })).toBeTruthy();
  });
});

describe('route table', () => {
  it('lists the same patterns as paths.json, which the server reads', () => {
    const { paths } = JSON.parse(readFileSync(repoPath('web/src/app/paths.json'), 'utf8')) as { paths: string[] };
    expect(pageRoutes.map((r) => r.path).sort()).toEqual([...paths].sort());
  });
});

describe('routes in the app', () => {
  it.each([
    { url: '/WAA/not-found?x=1', landed: '/not-found?x=1' },
    { url: '/create-an-account/zzz?a=b', landed: '/not-found' },
    { url: '/unknown/page', landed: '/unknown/page' },
  ])('$url lands on $landed showing not-found', async ({ url, landed }) => {
    await renderApp(siteConfig(), url);
    await waitFor(() => expect(window.location.pathname + window.location.search).toBe(landed));
    expect(screen.getByRole('heading', { level: 1, name: 'Page not found' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to login' }).getAttribute('href')).toBe('/');
  });
});
