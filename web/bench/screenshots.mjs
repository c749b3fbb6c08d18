// Screenshots of the portal as a policyholder sees it: login, forgot, a
// roadblock and /my-account, for every brand in both languages, at 320, 390,
// 768, 1280 and 1920 px wide (full pages), plus the unknown-site page.
// Starts the built binary (bin/guichet serve --dev) like the browser tests.
// Usage (from web/): node bench/screenshots.mjs [out-dir]
//   out-dir defaults to web/screenshots (git-ignored; never committed).
//   SHOTS_BRANDS=belair,intact  SHOTS_LANGUAGES=fr  SHOTS_WIDTHS=320,1280
//   SHOTS_PAGES=login,forgot,roadblock,my-account,unknown-site
//   narrow a run down while looking at one thing.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { brands, launchBrowser, repoRoot, startServer } from '../e2e/harness.mjs';

const DEMO_PASSWORD = 'Guichet-Demo-2026!';
const out = process.argv[2] || join(repoRoot, 'web/screenshots');
/** @param {string | undefined} value @param {string[]} all */
const pick = (value, all) => (value ? value.split(',').filter((v) => all.includes(v)) : all);

const widths = pick(process.env.SHOTS_WIDTHS, ['320', '390', '768', '1280', '1920']).map(Number);
const languages = pick(process.env.SHOTS_LANGUAGES, ['en', 'fr']);
const chosenBrands = pick(process.env.SHOTS_BRANDS, brands);
const pages = pick(process.env.SHOTS_PAGES, ['login', 'forgot', 'roadblock', 'my-account', 'unknown-site']);
/** Phones are taller than wide; larger screens 16:10-ish. */
const heightOf = (/** @type {number} */ width) => (width < 768 ? 740 : width < 1280 ? 1024 : Math.round(width * 0.56));

/**
 * A province of the brand where the language is spoken (qc for French when
 * the brand serves it), or none: servus serves Alberta in English only.
 * @param {string} brand @param {string} language
 */
async function provinceFor(brand, language) {
  const file = await readFile(join(repoRoot, `config/brands/${brand}.yaml`), 'utf8');
  const provinces = [...file.matchAll(/- key: "?([a-z]{2})"?\s+languages: \[([^\]]*)\]/g)].map((m) => ({
    key: m[1],
    languages: m[2].split(',').map((l) => l.trim()),
  }));
  const preferred = language === 'fr' ? 'qc' : 'on';
  return (provinces.find((p) => p.key === preferred && p.languages.includes(language)) ??
    provinces.find((p) => p.languages.includes(language)))?.key;
}

// The flow state a roadblock needs to show itself (lib/flow/state.ts).
const flow = { roadblocked: true, resetPassword: null };

await mkdir(out, { recursive: true });
const server = await startServer();
const browser = await launchBrowser();
let count = 0;
try {
  for (const brand of chosenBrands) {
    for (const language of languages) {
      const province = await provinceFor(brand, language);
      if (!province) {
        console.log(`${brand} has no ${language} pages: skipped`);
        continue;
      }
      const query = `?province=${province}&lang=${language}`;
      for (const width of widths) {
        const context = await browser.newContext({ viewport: { width, height: heightOf(width) } });
        await context.addInitScript((f) => sessionStorage.setItem('guichet.flow', JSON.stringify(f)), flow);
        const page = await context.newPage();
        /** @param {string} name */
        const shoot = async (name) => {
          await page.getByRole('heading', { level: 1 }).waitFor();
          await page.waitForLoadState('networkidle');
          await page.evaluate(() => document.fonts.ready);
          // The h1 takes focus on a page change; a screenshot shows the page at rest.
          await page.evaluate(() => /** @type {HTMLElement | null} */ (document.activeElement)?.blur());
          await page.screenshot({ path: join(out, `${brand}-${language}-${name}-${width}.png`), fullPage: true });
          count++;
        };
        try {
          if (pages.includes('login')) {
            await page.goto(server.url(brand, `/${query}`));
            await shoot('login');
          }
          if (pages.includes('forgot')) {
            await page.goto(server.url(brand, `/forgot${query}`));
            await shoot('forgot');
          }
          if (pages.includes('roadblock')) {
            await page.goto(server.url(brand, `/roadblock/login-difficulties${query}`));
            await shoot('roadblock');
          }
          if (pages.includes('my-account')) {
            await page.goto(server.url(brand, `/${query}`));
            await page.getByRole('heading', { level: 1 }).waitFor();
            const fr = language === 'fr';
            await page.getByLabel(fr ? 'Adresse courriel' : 'Email address').fill(`demo@${brand}.example`);
            await page.getByLabel(fr ? 'Mot de passe' : 'Password', { exact: true }).fill(DEMO_PASSWORD);
            await page.getByRole('button', { name: fr ? 'Se connecter' : 'Sign in' }).press('Enter');
            await page.waitForURL(server.url(brand, '/my-account'));
            await page.getByRole('table').waitFor();
            await shoot('my-account');
          }
        } finally {
          await context.close();
        }
      }
    }
  }
  if (pages.includes('unknown-site')) {
    for (const width of widths) {
      const context = await browser.newContext({ viewport: { width, height: heightOf(width) } });
      const page = await context.newPage();
      await page.goto(server.url('unknown', '/?lang=en'));
      await page.screenshot({ path: join(out, `unknown-site-${width}.png`), fullPage: true });
      count++;
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.stop();
}
console.log(`${count} screenshots in ${out}`);
