// The scripts a page downloads, as they cross the network: shared by
// bench/route-js.mjs and e2e/assets.test.mjs (issue 32's budgets).

/**
 * @typedef {{ path: string; type: string; wire: number; headers: number; raw: number; encoding: string; accept: string }} WireScript
 * wire: the response body's bytes as received (encoded: brotli or gzip when
 * the server compressed it); headers: the response headers' bytes; raw: the
 * decoded body's; type: Playwright's resource type (script, stylesheet, font, …).
 */

/**
 * Records every script the page fetches from now on; the function returned
 * gives them once their responses have been read.
 * @param {import('playwright-core').Page} page
 * @returns {() => Promise<WireScript[]>}
 */
export function recordScripts(page) {
  return recordResponses(page, (type) => type === 'script');
}

/**
 * Records every response the page gets from now on (the document, styles,
 * scripts, fonts, images, API calls: everything a phone downloads), or
 * those whose resource type passes the filter.
 * @param {import('playwright-core').Page} page
 * @param {(type: string) => boolean} [only]
 * @returns {() => Promise<WireScript[]>}
 */
export function recordResponses(page, only = () => true) {
  /** @type {Promise<WireScript>[]} */
  const scripts = [];
  page.on('requestfinished', (req) => {
    if (!only(req.resourceType())) return;
    scripts.push((async () => {
      const res = await req.response();
      if (!res) throw new Error(`${req.url()}: no response`);
      const [sizes, body, headers, sent] = await Promise.all([req.sizes(), res.body().catch(() => Buffer.alloc(0)), res.allHeaders(), req.allHeaders()]);
      return {
        path: new URL(req.url()).pathname,
        type: req.resourceType(),
        wire: sizes.responseBodySize,
        headers: sizes.responseHeadersSize,
        raw: body.length,
        encoding: headers['content-encoding'] || 'identity',
        accept: sent['accept-encoding'] || '',
      };
    })());
  });
  return () => Promise.all(scripts);
}
