// Measures the JavaScript a visitor downloads to render the login route, as
// it crosses the network: for every script Chromium fetched, the response
// body's bytes as received (encoded: brotli or gzip when the server
// compressed it), summed, in English and in French (?lang=fr). Headers are
// shown apart and not counted against the budget. Usage:
//   node bench/route-js.mjs http://belair.localhost:8080/ [budgetKB]
// BENCH_ACCEPT_ENCODING=identity makes the browser refuse compression (what
// a server without it sends).
// It also prints everything the page downloads until the network is quiet
// (document, styles, scripts, fonts, images, API calls: what a phone pays
// before the page is usable; issue 32), bodies as received and headers,
// against allBudgetKB (bodies and headers) when given:
//   node bench/route-js.mjs http://belair.localhost:8080/ 90 110
import { chromium } from 'playwright-core';
import { recordResponses } from './wire.mjs';

const url = process.argv[2];
const budget = Number(process.argv[3] || 0);
const allBudget = Number(process.argv[4] || 0);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const kb = (/** @type {number} */ n) => (n / 1024).toFixed(1);

/**
 * Loads one page in a fresh context (an empty cache) and lists what it
 * downloaded: its scripts, and everything.
 * @param {string} pageURL
 */
async function measure(pageURL) {
  const accept = process.env.BENCH_ACCEPT_ENCODING;
  const context = await browser.newContext(accept ? { extraHTTPHeaders: { 'Accept-Encoding': accept } } : {});
  const page = await context.newPage();
  const responses = recordResponses(page);
  await page.goto(pageURL, { waitUntil: 'networkidle' });
  const everything = await responses();
  await context.close();
  const scripts = everything.filter((r) => r.type === 'script');
  return { scripts, everything };
}

let over = false;
for (const [language, pageURL] of [['en', url], ['fr', `${url}${url.includes('?') ? '&' : '?'}lang=fr`]]) {
  const { scripts: all, everything } = await measure(pageURL);
  let wire = 0;
  let headers = 0;
  let raw = 0;
  for (const s of all) {
    wire += s.wire;
    headers += s.headers;
    raw += s.raw;
    console.log(`  ${kb(s.wire).padStart(7)} KB ${s.encoding.padEnd(8)} ${kb(s.raw).padStart(7)} KB decoded  ${s.path}`);
  }
  const accepts = [...new Set(all.map((s) => s.accept))].join(' | ');
  const total = wire / 1024;
  console.log(`route JS ${new URL(pageURL).pathname}${new URL(pageURL).search} (${language}): ${total.toFixed(1)} KB on the wire ` +
    `(${kb(raw)} KB decoded, ${kb(headers)} KB of headers besides) in ${all.length} files; Accept-Encoding: ${accepts}` +
    (budget ? `; budget ${budget} KB: ${total <= budget ? 'within' : 'OVER'}` : ''));
  if (budget && total > budget) over = true;
  const bodies = everything.reduce((n, r) => n + r.wire, 0) / 1024;
  const withHeaders = bodies + everything.reduce((n, r) => n + r.headers, 0) / 1024;
  console.log(`everything ${new URL(pageURL).pathname}${new URL(pageURL).search} (${language}) downloads until the network is quiet: ` +
    `${withHeaders.toFixed(1)} KB with the headers (${bodies.toFixed(1)} KB of bodies) in ${everything.length} responses; bodies by kind: ` +
    [...new Set(everything.map((r) => r.type))].map((type) => `${type} ${kb(everything.filter((r) => r.type === type).reduce((n, r) => n + r.wire, 0))}`).join(', ') +
    (allBudget ? `; budget ${allBudget} KB: ${withHeaders <= allBudget ? 'within' : 'OVER'}` : ''));
  if (allBudget && withHeaders > allBudget) over = true;
}
await browser.close();
if (over) process.exitCode = 1;
