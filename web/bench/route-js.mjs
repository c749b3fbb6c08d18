// Measures the JavaScript a visitor downloads to render a route: every script
// response Chromium fetched, gzipped at level 9, summed. Usage:
//   node bench/route-js.mjs http://belair.localhost:8080/ [budgetKB]
import { chromium } from 'playwright-core';
import { gzipSync } from 'node:zlib';

const url = process.argv[2];
const budget = Number(process.argv[3] || 0);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const context = await browser.newContext();
const page = await context.newPage();
const scripts = [];
page.on('response', async (res) => {
  if (res.request().resourceType() === 'script') {
    scripts.push(res.body().then((b) => ({ url: res.url(), raw: b.length, gz: gzipSync(b, { level: 9 }).length })));
  }
});
await page.goto(url, { waitUntil: 'networkidle' });
const all = await Promise.all(scripts);
await browser.close();
let total = 0;
for (const s of all) {
  total += s.gz;
  console.log(`  ${(s.gz / 1024).toFixed(1).padStart(7)} KB gz  ${(s.raw / 1024).toFixed(1).padStart(7)} KB raw  ${new URL(s.url).pathname}`);
}
const kb = total / 1024;
console.log(`route JS ${new URL(url).pathname}: ${kb.toFixed(1)} KB gzip in ${all.length} files` +
  (budget ? ` (budget ${budget} KB: ${kb <= budget ? 'within' : 'OVER'})` : ''));
if (budget && kb > budget) process.exitCode = 1;
