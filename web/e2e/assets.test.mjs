// Browser test of the precompressed assets (issue 12, defect 2): the login
// page's JavaScript and CSS arrive compressed, the browser decodes them and
// the page works. Chromium advertises br to *.localhost over plain http
// ("gzip, deflate, br, zstd": localhost is a secure context); to another
// host over plain http it offers "gzip, deflate" only, which the second test
// sends itself.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkA11y, launchBrowser, startServer } from './harness.mjs';

/** @type {import('./harness.mjs').Server} */
let server;
/** @type {import('playwright-core').Browser} */
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

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
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await page.waitForLoadState('networkidle');
  return { context, page, seen };
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
});
