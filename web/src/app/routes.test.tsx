import { readFileSync } from 'node:fs';
import { render, screen, waitFor } from '@testing-library/react';
import { Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { repoPath } from '@/test/repo';
import { renderApp } from '@/test/render';
import { siteConfig } from '@/test/site-fixture';
import { REGISTRATION_PAGES } from '@/lib/flow/registration-guard';
import { lazyPage, pageRoutes, patternMatches, preloadPage, redirectTarget } from './routes';

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

// Issue 12, defect 3: the first paint holds the whole page (main.tsx
// preloads it), so the footer does not jump when the page's chunk arrives.
describe('patternMatches (as the server and wouter)', () => {
  it.each([
    ['/', '/', true],
    ['/', '/forgot', false],
    ['/forgot', '/forgot/', true],
    ['/roadblock/:page', '/roadblock/technical', true],
    ['/roadblock/:page', '/roadblock/', false],
    ['/roadblock/:page', '/roadblock', false],
    ['/roadblock', '/roadblock/technical', false],
  ] as const)('%s ~ %s: %s', (pattern, path, want) => {
    expect(patternMatches(pattern, path)).toBe(want);
  });
});

describe('lazyPage', () => {
  const heading = () => <h1>The page</h1>;

  it('once preloaded, renders at once, without the Suspense fallback', async () => {
    const load = vi.fn(() => Promise.resolve({ default: heading }));
    const Page = lazyPage(load);
    await Promise.all([Page.preload(), Page.preload()]);
    render(
      <Suspense fallback={<p>Loading</p>}>
        <Page />
      </Suspense>,
    );
    expect(screen.getByRole('heading', { name: 'The page' })).toBeTruthy();
    expect(screen.queryByText('Loading')).toBeNull();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('not preloaded, suspends like React.lazy and then shows the page', async () => {
    const Page = lazyPage(() => Promise.resolve({ default: heading }));
    render(
      <Suspense fallback={<p>Loading</p>}>
        <Page />
      </Suspense>,
    );
    expect(screen.getByText('Loading')).toBeTruthy();
    await screen.findByRole('heading', { name: 'The page' });
  });

  it('a failed load is tried again', async () => {
    const load = vi.fn().mockRejectedValueOnce(new Error('offline')).mockResolvedValue({ default: heading });
    const Page = lazyPage(load);
    await expect(Page.preload()).rejects.toThrow('offline');
    await Page.preload();
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('preloadPage', () => {
  const route = (path: string) => pageRoutes.find((r) => r.path === path)!;

  it.each([
    { path: '/', dev: false, page: '/' },
    { path: '/forgot', dev: false, page: '/forgot' },
    { path: '/roadblock/technical', dev: false, page: '/roadblock/:page' },
    { path: '/nope/zzz', dev: false, page: '/not-found' },
    { path: '/_dev/forms', dev: false, page: '/not-found' },
    { path: '/_dev/forms', dev: true, page: '/_dev/forms' },
  ])('$path (dev $dev) loads the chunk of $page', async ({ path, dev, page }) => {
    const spies = pageRoutes.map((r) => vi.spyOn(r.page, 'preload').mockResolvedValue(undefined));
    await preloadPage(path, dev);
    // Routes may share a page (/roadblock and /roadblock/:page): compared by page.
    const called = new Set(pageRoutes.filter((_, i) => (spies[i]?.mock.calls.length ?? 0) > 0).map((r) => r.page));
    expect([...called]).toEqual([route(page).page]);
    expect(route(page).page.preload).toHaveBeenCalledTimes(1);
  });

  it('loads nothing for an address that redirects, and never rejects', async () => {
    const spies = pageRoutes.map((r) => vi.spyOn(r.page, 'preload').mockRejectedValue(new Error('offline')));
    await preloadPage('/WAA/forgot', false);
    expect(spies.every((s) => s.mock.calls.length === 0)).toBe(true);
    await expect(preloadPage('/forgot', false)).resolves.toBeUndefined();
  });
});
