// Browser test of the precompressed assets (issue 12, defect 2): the login
// page's JavaScript and CSS arrive compressed, the browser decodes them and
// the page works. Chromium advertises br to *.localhost over plain http
// ("gzip, deflate, br, zstd": localhost is a secure context); to another
// host over plain http it offers "gzip, deflate" only, which the second test
// sends itself.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { recordScripts } from '../bench/wire.mjs';
import { checkA11y, startSuite, withContext } from './harness.mjs';

const { server, browser } = await startSuite();

/**
 * Opens the login page in a fresh context and returns the headers of every
 * response it loaded, by resource type.
 * @param {Record<string, string>} [extraHTTPHeaders]
 */
async function loadLogin(extraHTTPHeaders) {
  const context = await browser.newContext(extraHTTPHeaders ? { extraHTTPHeaders } : {});
  const page = await context.newPage();
  /** @type {{ type: string; path: string; accept: string; headers: Record<string, string> }[]} */
  const seen = [];
  page.on('response', async (res) => {
    const req = res.request();
    seen.push({
      type: req.resourceType(),
      path: new URL(res.url()).pathname,
      accept: (await req.allHeaders())['accept-encoding'] ?? '',
      headers: await res.allHeaders(),
    });
  });
  await page.goto(server.url('belair', '/'));
  // The heading and the form are drawn by the decoded scripts.
  await page.getByRole('heading', { level: 1, name: 'Sign in to your account' }).waitFor();
  await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  await page.waitForLoadState('networkidle');
  return { context, page, seen };
}

/**
 * The pages a visit can start on (a link, an email, a bookmark), with the
 * flow state their guard wants to show them rather than redirect: a
 * roadblock opens only while the roadblocked flag is set (lib/flow/state.ts).
 * @type {{ path: string; name: string; flow?: Record<string, unknown> }[]}
 */
const ENTRY_ROUTES = [
  { path: '/', name: 'login' },
  { path: '/forgot', name: 'forgot password' },
  { path: '/registration/identification', name: 'registration' },
  { path: '/create-an-account/identification/account-type', name: 'smart registration' },
  { path: '/roadblock/technical', name: 'a roadblock', flow: { roadblocked: true } },
  { path: '/email-undo', name: 'undo an email change' },
];

/**
 * Opens an entry page in a fresh context (an empty cache) in a language,
 * offering one coding, and returns the scripts it downloaded until the
 * network went quiet, with their bodies' bytes as received, and the path
 * it ended on.
 * @param {string} path
 * @param {'en' | 'fr'} language
 * @param {'br' | 'gzip'} encoding
 * @param {Record<string, unknown>} [flow]
 */
async function entryScripts(path, language, encoding, flow) {
  // Chromium offers br to *.localhost by itself; gzip alone is what it offers a plain-http host.
  const context = await browser.newContext(encoding === 'gzip' ? { extraHTTPHeaders: { 'Accept-Encoding': 'gzip, deflate' } } : {});
  try {
    if (flow) {
      await context.addInitScript((state) => {
        if (!sessionStorage.getItem('guichet.flow')) sessionStorage.setItem('guichet.flow', JSON.stringify(state));
      }, flow);
    }
    const page = await context.newPage();
    const scripts = recordScripts(page);
    await page.goto(server.url('belair', `${path}?lang=${language}`));
    await page.locator('h1').first().waitFor();
    await page.waitForLoadState('networkidle');
    return { scripts: await scripts(), at: new URL(page.url()).pathname };
  } finally {
    await context.close();
  }
}

/**
 * The coding a response came in; a file of a few bytes, which compression
 * would make larger, has no compressed copy (web/scripts/compress-dist.mjs).
 * @param {{ path: string; headers: Record<string, string> }} r
 */
function coding(r) {
  const encoding = r.headers['content-encoding'];
  if (!encoding) assert.ok(Number(r.headers['content-length']) < 200, `${r.path} came uncompressed`);
  return encoding ?? 'tiny';
}

describe('precompressed assets', () => {
  test('the login page gets its scripts and styles in brotli, cached for good; the page itself no-cache', async () => {
    const { context, page, seen } = await loadLogin();
    try {
      await checkA11y(page);
      const assets = seen.filter((r) => r.type === 'script' || r.type === 'stylesheet');
      assert.ok(assets.filter((r) => r.type === 'script').length >= 2, `scripts: ${assets.map((r) => r.path)}`);
      assert.ok(assets.some((r) => coding(r) === 'br'));
      for (const r of assets) {
        assert.match(r.accept, /\bbr\b/, `${r.path}: Chromium sent Accept-Encoding ${r.accept}`);
        assert.match(coding(r), /^(br|tiny)$/, r.path);
        assert.match(r.headers.vary ?? '', /Accept-Encoding/i, r.path);
        assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable', r.path);
      }
      const doc = seen.find((r) => r.type === 'document');
      assert.equal(doc?.headers['cache-control'], 'no-cache');
    } finally {
      await context.close();
    }
  });

  // Issue 17: the live-chat widget is its own chunk, fetched when the bubble is pressed.
  test("the login page's scripts do not hold the chat widget; pressing the bubble fetches it", async () => {
    const { context, page, seen } = await loadLogin();
    try {
      const widget = /\/assets\/chat-widget-[\w-]+\.js$/;
      const initial = seen.filter((r) => r.type === 'script').map((r) => r.path);
      assert.ok(!initial.some((path) => widget.test(path)), `initial scripts: ${initial}`);
      const fetched = page.waitForResponse((res) => widget.test(new URL(res.url()).pathname));
      await page.getByRole('button', { name: 'Chat with us' }).click();
      await fetched;
      await page.getByRole('dialog', { name: 'Chat with us' }).waitFor();
    } finally {
      await context.close();
    }
  });

  test('a browser offering only gzip and deflate (Chromium to a plain-http host) gets gzip and a working page', async () => {
    const { context, page, seen } = await loadLogin({ 'Accept-Encoding': 'gzip, deflate' });
    try {
      await checkA11y(page);
      const scripts = seen.filter((r) => r.type === 'script');
      assert.ok(scripts.length >= 2);
      for (const r of scripts) assert.match(coding(r), /^(gzip|tiny)$/, r.path);
      assert.ok(scripts.some((r) => coding(r) === 'gzip'));
    } finally {
      await context.close();
    }
  });

  // Issue 32: the JavaScript a first visit downloads to an entry page, as it
  // crosses the network (the response bodies' encoded bytes), in each
  // language, over brotli (what Chromium gets from *.localhost) and over gzip
  // (what it gets over plain http from another host): at most 90 KB and
  // 100 KB. bench/route-js.mjs prints the same sums file by file.
  for (const { path, name, flow } of ENTRY_ROUTES) {
    for (const language of /** @type {const} */ (['en', 'fr'])) {
      for (const [encoding, budget] of /** @type {const} */ ([['br', 90], ['gzip', 100]])) {
        test(`${name} (${path}, ${language}): at most ${budget} KB of JavaScript over ${encoding}`, async () => {
          const { scripts, at } = await entryScripts(path, language, encoding, flow);
          assert.equal(at, path, `${path} redirected to ${at}: the budget is measured on another page`);
          const wire = scripts.reduce((n, s) => n + s.wire, 0);
          const list = scripts.map((s) => `${s.path} ${(s.wire / 1024).toFixed(1)} KB ${s.encoding}`).join('\n  ');
          assert.ok(scripts.some((s) => s.encoding === encoding), `no script came in ${encoding}:\n  ${list}`);
          assert.ok(wire <= budget * 1024, `${(wire / 1024).toFixed(1)} KB on the wire, budget ${budget} KB:\n  ${list}`);
        });
      }
    }
  }

  // Issue 12: one web font, self-hosted, subset, preloaded; issue 32: cut
  // to English and French, at most 15 KB on the wire a face.
  test('the web font: Source Sans 3, preloaded, every face fetched from /assets/ in 15 KB at most, in use', () =>
    withContext(browser, {}, async (page) => {
      /** @type {Promise<{ path: string; wire: number; type: string; cache: string }>[]} */
      const fonts = [];
      page.on('requestfinished', (req) => {
        if (req.resourceType() !== 'font') return;
        fonts.push((async () => {
          const res = await req.response();
          const sizes = await req.sizes();
          /** @type {Record<string, string>} */
          const headers = res ? await res.allHeaders() : {};
          return { path: new URL(req.url()).pathname, wire: sizes.responseBodySize, type: headers['content-type'] ?? '', cache: headers['cache-control'] ?? '' };
        })());
      });
      const response = await page.goto(server.url('belair', '/'));
      const html = (await response?.text()) ?? '';
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      await page.waitForLoadState('networkidle');
      const loaded = await Promise.all(fonts);
      assert.ok(loaded.length >= 1 && loaded.length <= 2, `two weights at most: ${loaded.map((f) => f.path)}`);
      for (const f of loaded) {
        assert.ok(f.wire > 0 && f.wire <= 15 * 1024, `${f.path}: ${(f.wire / 1024).toFixed(1)} KB on the wire, budget 15 KB a face`);
        assert.match(f.path, /^\/assets\/source-sans-3-latin-\d00-normal-[\w-]+\.woff2$/);
        assert.equal(f.type, 'font/woff2', f.path);
        assert.equal(f.cache, 'public, max-age=31536000, immutable', f.path);
        assert.ok(html.includes(`<link rel="preload" href="${f.path}" as="font" type="font/woff2" crossorigin`), `${f.path} is not preloaded`);
      }
      const family = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
      assert.match(family, /^"Source Sans 3", "Source Sans 3 Fallback"/);
      assert.ok(await page.evaluate(() => document.fonts.check('16px "Source Sans 3"')), 'the font is not in use');
    }));
});
