// Browser-test harness: starts the built binary (bin/guichet serve --dev) on a
// free port with a temporary data dir, drives Debian's chromium through
// playwright-core, and checks pages with axe-core.
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium } from 'playwright-core';
import { watchFocus } from './focus-watch.mjs';
import { watchLayoutShifts } from './layout-shift.mjs';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The binary under test; GUICHET_E2E_BINARY may point at another build. */
export const binary = process.env.GUICHET_E2E_BINARY || join(repoRoot, 'bin/guichet');

/**
 * How long any wait of a browser test may last before it counts as a hang:
 * the server's start, a page's load, a locator, an email in the dev mailbox
 * (every browser context gets it as its default timeout, launchBrowser). A
 * bound on a hang, never a measure of speed: on a busy machine (CI with
 * other work beside it, load average 10 and more) Playwright's own 30 s
 * failed tests that were right (issue 27). What a test proves about time it
 * proves by counting, or on a clock it moves.
 */
export const HANG_MS = 180_000;

/** The dev hosts of design.md, one per brand (nbc is another name of bna). */
export const brands = ['belair', 'bna', 'intact', 'scotia', 'servus'];

/**
 * Every secret the tests of this file used (the demo passwords of README.md,
 * codes and link tokens read from the dev mailbox, links a command printed,
 * TOTP codes, what a test adds with keepSecret): the server's output must
 * hold none of them; stop() fails the file otherwise (design.md "Logs").
 * @type {Set<string>}
 */
const secrets = new Set(['Guichet-Demo-2026!', 'Temp-Pass-2026', 'Guichet-Staff-2026!']);

/**
 * Adds a secret the server's log must never hold, and returns it.
 * @param {string} value
 */
export function keepSecret(value) {
  if (value.length >= 6) secrets.add(value);
  return value;
}

/**
 * Keeps the secrets a text shows: 6-digit codes, links' tokens (?token=,
 * 16 characters or more: the dev mailbox's previews say token=preview) and
 * set-up fragments (#token); returns the text.
 * @param {string} text
 */
function keepSecretsOf(text) {
  for (const m of text.matchAll(/(?<![0-9A-Za-z])\d{6}(?![0-9A-Za-z])/g)) keepSecret(m[0]);
  for (const m of text.matchAll(/[?&]token=([A-Za-z0-9_%.-]{16,})/g)) keepSecret(decodeURIComponent(m[1] ?? ''));
  for (const m of text.matchAll(/#([A-Za-z0-9_-]{20,})/g)) keepSecret(m[1] ?? '');
  return text;
}

/**
 * The lines of a server's output that hold a kept secret (the secret
 * replaced); a secret of digits only counts when no letter or digit is
 * beside it (a timestamp's digits are not a code).
 * @param {string} output
 */
function leakedSecrets(output) {
  /** @type {string[]} */
  const found = [];
  for (const secret of secrets) {
    const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pattern = /^\d+$/.test(secret) ? new RegExp(`(?<![0-9A-Za-z])${escaped}(?![0-9A-Za-z])`) : new RegExp(escaped);
    for (const line of output.split('\n')) {
      if (pattern.test(line)) found.push(line.replace(pattern, '«secret»').slice(0, 300));
    }
  }
  return found;
}

/** @returns {Promise<number>} a TCP port free on 127.0.0.1 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * @typedef {object} Server
 * @property {number} port
 * @property {(brand: string, path?: string) => string} url page URL on a brand's dev host
 * @property {string} dataDir the server's GUICHET_DATA_DIR (its SQLite database is guichet.db there)
 * @property {(...args: string[]) => Promise<string>} cli runs an operators' command (bin/guichet ARGS) on the server's database; resolves its output
 * @property {() => Promise<void>} stop
 */

/**
 * Starts `guichet serve --dev` and waits until GET /readyz answers 200.
 * @param {{ brandsDir?: string; env?: Record<string, string> }} [options] brandsDir: the brand files to serve; env: more environment for the server and its commands
 * @returns {Promise<Server>}
 */
export async function startServer(options = {}) {
  if (!existsSync(binary)) throw new Error(`${binary} does not exist: run \`make build\` first`);
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'guichet-e2e-'));
  /** @type {NodeJS.ProcessEnv} */
  const env = {
    ...process.env,
    GUICHET_ADDR: `127.0.0.1:${port}`,
    // Servers of several test files run at once: no admin listener on a fixed port.
    GUICHET_ADMIN_ADDR: 'off',
    GUICHET_DATA_DIR: dataDir,
    GUICHET_BRANDS_DIR: options.brandsDir || process.env.GUICHET_BRANDS_DIR || join(repoRoot, 'config/brands'),
    ...options.env,
  };
  delete env.GUICHET_DATABASE_URL;
  if (process.env.GUICHET_E2E_DATABASE_URL) env.GUICHET_DATABASE_URL = process.env.GUICHET_E2E_DATABASE_URL;

  const child = spawn(binary, ['serve', '--dev'], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  /** @type {string[]} the whole output, for the secrets check */
  const whole = [];
  const keep = (/** @type {Buffer} */ chunk) => {
    output = (output + chunk.toString()).slice(-20_000);
    whole.push(chunk.toString());
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  /** @type {Promise<void>} */
  const exited = new Promise((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dataDir, { recursive: true, force: true });
    const leaked = leakedSecrets(whole.join(''));
    if (leaked.length > 0) throw new Error(`the server's output holds ${leaked.length} secret(s) the tests used:\n${leaked.join('\n')}`);
  };

  const deadline = Date.now() + HANG_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`guichet exited before it was ready:\n${output}`);
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (response.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`guichet was not ready within ${HANG_MS / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  return {
    port,
    dataDir,
    url: (brand, path = '/') => `http://${brand}.localhost:${port}${path}`,
    cli: (...args) =>
      new Promise((resolve, reject) =>
        execFile(binary, args, { cwd: repoRoot, env }, (error, stdout, stderr) =>
          error ? reject(new Error(`guichet ${args.join(' ')}: ${stderr || error.message}`)) : resolve(keepSecretsOf(stdout)),
        ),
      ),
    stop,
  };
}

/**
 * Launches Debian's chromium, headless. Every context it opens (and every
 * page of browser.newPage, which opens one) waits up to HANG_MS by default
 * and fails the test during which one of its pages shifts its layout
 * (layout-shift.mjs).
 * @returns {Promise<import('playwright-core').Browser>}
 */
export async function launchBrowser() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH || '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      // *.localhost is loopback anyway; pin it to the IPv4 address we listen on.
      '--host-resolver-rules=MAP *.localhost 127.0.0.1',
    ],
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (/** @type {import('playwright-core').BrowserContextOptions | undefined} */ options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(HANG_MS);
    context.setDefaultNavigationTimeout(HANG_MS);
    await watchLayoutShifts(context);
    await watchFocus(context);
    return context;
  };
  return browser;
}

const axeTags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

/** The screens this file's checkA11y found nothing on (digests of what axe's answer depends on). */
const checkedScreens = new Set();
/** How many checks found the screen already checked, for the tests of checkA11y itself. */
export const a11yStats = { checked: 0, skipped: 0 };

/**
 * Runs axe-core (WCAG 2.0/2.1 A and AA, WCAG 2.2 AA) on the page and throws
 * with a readable list when anything is violated. The page must come from
 * browser.newContext().
 * @param {import('playwright-core').Page} page
 */
export async function checkA11y(page) {
  // The same screen again (same document, viewport, scroll and focus) is not
  // checked again: axe's answer is a function of them (issue 27: a third of
  // the runs in the flows' files were on a screen the file had checked). A
  // page with frames is always checked (their documents are not in its HTML).
  const frameless = page.frames().length === 1;
  const screen = await page.evaluate(() => {
    const focused = document.activeElement;
    const html = document.documentElement.outerHTML.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '').replace(/ nonce="[^"]*"/g, '');
    const where = [location.origin + location.pathname, innerWidth, innerHeight, scrollX, scrollY];
    return JSON.stringify([where, focused ? focused.outerHTML.slice(0, 500) : '', html]);
  });
  const key = createHash('sha256').update(screen).digest('hex');
  if (frameless && checkedScreens.has(key)) {
    a11yStats.skipped++;
    return;
  }
  a11yStats.checked++;
  // A page without frames is checked by axe.run in the page itself
  // (AxeBuilder's legacy mode), which gives the same result as the default:
  // partial runs, then axe.finishRun in a new blank page of the context. That
  // page started a renderer process per check, about 1.3 CPU-seconds each on
  // the CI machine (issue 27, docs/ci.md). A page with frames keeps the
  // default, which tests cross-origin frames too.
  const results = await new AxeBuilder({ page })
    .withTags(axeTags)
    .setLegacyMode(frameless)
    .analyze();
  if (results.violations.length === 0) {
    checkedScreens.add(key);
    return;
  }
  const lines = results.violations.map((v) => {
    const nodes = v.nodes.map((n) => `      ${n.target.join(' ')}: ${n.failureSummary?.replace(/\n/g, ' ')}`).join('\n');
    return `  ${v.id} (${v.impact}): ${v.help}\n${nodes}`;
  });
  throw new Error(`axe found ${results.violations.length} violation(s) on ${page.url()}:\n${lines.join('\n')}`);
}

/**
 * The pageView events the SPA pushed to window.dataLayer.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<Array<Record<string, unknown>>>}
 */
export function pageViews(page) {
  return page.evaluate(() =>
    /** @type {Array<Record<string, unknown>>} */ (/** @type {any} */ (window).dataLayer ?? []).filter(
      (/** @type {any} */ e) => e && e.event === 'pageView',
    ),
  );
}

/**
 * The SiteConfig the server injected into the page.
 * @param {import('playwright-core').Page} page
 */
export async function siteConfig(page) {
  const text = await page.locator('#guichet-site').textContent();
  return JSON.parse(text ?? 'null');
}

/**
 * @typedef {object} OpenedPage
 * @property {import('playwright-core').BrowserContext} context
 * @property {import('playwright-core').Page} page
 * @property {import('playwright-core').Response | null} response
 * @property {string[]} errors console errors and uncaught exceptions (a CSP violation shows here)
 */

/**
 * The cookies of a visitor who chose a province and a language (the pages
 * the SSO redirects to read them too): openPage's and keptPages' cookies.
 * @param {string} province
 * @param {string} language
 */
export const localeCookies = (province, language) => [
  { name: 'province', value: province },
  { name: 'language', value: language },
];

/**
 * Opens a URL in a fresh context (axe needs one), records the page's errors
 * and waits for its first heading.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @param {{ cookies?: { name: string; value: string }[]; viewport?: { width: number; height: number } }} [options]
 * @returns {Promise<OpenedPage>}
 */
export async function openPage(browser, url, options = {}) {
  const context = await browser.newContext(options.viewport ? { viewport: options.viewport } : {});
  if (options.cookies) await context.addCookies(options.cookies.map((c) => ({ ...c, url: new URL('/', url).href })));
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  listenForErrors(page, () => errors);
  const response = await page.goto(url);
  await page.getByRole('heading', { level: 1 }).waitFor();
  return { context, page, response, errors };
}

/**
 * openPage, then `use` with what it opened; the page's context is closed
 * whatever happens. Resolves what `use` resolves.
 * @template T
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @param {Parameters<typeof openPage>[2]} options
 * @param {(opened: OpenedPage) => Promise<T>} use
 * @returns {Promise<T>}
 */
export async function withOpenPage(browser, url, options, use) {
  const opened = await openPage(browser, url, options);
  try {
    return await use(opened);
  } finally {
    await opened.context.close();
  }
}

/**
 * Runs `use` with a new page of a fresh context (browser.newContext's
 * options) and closes the context whatever happens. Resolves what `use`
 * resolves.
 * @template T
 * @param {import('playwright-core').Browser} browser
 * @param {import('playwright-core').BrowserContextOptions} options
 * @param {(page: import('playwright-core').Page, context: import('playwright-core').BrowserContext) => Promise<T>} use
 * @returns {Promise<T>}
 */
export async function withContext(browser, options, use) {
  const context = await browser.newContext(options);
  try {
    return await use(await context.newPage(), context);
  } finally {
    await context.close();
  }
}

/**
 * Records the page's console errors and uncaught exceptions in the list
 * `into` gives at the time.
 * @param {import('playwright-core').Page} page
 * @param {() => string[]} into
 */
function listenForErrors(page, into) {
  page.on('pageerror', (error) => into().push(String(error)));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // A 404 page load is logged as a failed resource; that status is the point.
    if (message.text().startsWith('Failed to load resource') && message.location().url === page.url()) return;
    into().push(message.text());
  });
}

/**
 * Gives a kept page the state of a fresh context before its next load:
 * every cookie of its context cleared and, when it is on a site, that
 * site's session and local storage cleared and the page's storage writes
 * turned off (one synchronous script: nothing the old document still does
 * can write them back; the next document has storage of its own). Storage
 * of other sites the page went to is the caller's to rule out.
 * @param {import('playwright-core').Page} page
 */
export async function clearPageState(page) {
  if (page.url().startsWith('http')) {
    await page.evaluate(() => {
      sessionStorage.clear();
      localStorage.clear();
      for (const name of /** @type {const} */ (['setItem', 'removeItem', 'clear'])) Storage.prototype[name] = () => {};
    });
  }
  await page.context().clearCookies();
}

/**
 * @typedef {object} KeptPages
 * @property {(url: string, options?: { cookies?: { name: string; value: string }[] }) => Promise<Omit<OpenedPage, 'context'>>} open
 *   the page of url's host, in the state of a fresh context, at url (its first heading shown)
 * @property {() => Promise<void>} close
 */

/**
 * A page per host kept for the tests of a suite, each of which opens it
 * afresh (issue 27, docs/ci.md: a fresh context per test started a window
 * and its renderer processes, about twice the CPU of a load in a kept page).
 * open() gives the host's page the state a fresh context has: the storage
 * of the page's host cleared (its writes turned off first, so nothing the
 * old page still does can bring it back), every cookie cleared, then the
 * given cookies, then the load. When the page went to another host since
 * it was opened (storage it cannot clear from where it is) or the test
 * opened another page in its context, the context is closed and a new one
 * made. Tests that add init scripts, routes, permissions or a clock to
 * their context keep openPage.
 * @param {import('playwright-core').Browser} browser
 * @param {{ viewport?: { width: number; height: number } }} [options]
 * @returns {KeptPages}
 */
export function keptPages(browser, options = {}) {
  /**
   * @typedef {{ context: import('playwright-core').BrowserContext; page: import('playwright-core').Page; hosts: Set<string>; errors: string[] }} Kept
   * hosts: where the page has been since it was last opened
   */
  /** @type {Map<string, Kept>} by host */
  const kept = new Map();

  /** @param {Kept} entry the page can be made fresh where it is */
  const reusable = ({ context, page, hosts }) =>
    page.url().startsWith('http') && hosts.size === 1 && hosts.has(new URL(page.url()).host) && context.pages().length === 1;

  return {
    async open(url, { cookies } = {}) {
      const host = new URL(url).host;
      let entry = kept.get(host);
      if (entry && reusable(entry)) {
        await clearPageState(entry.page);
      } else if (entry) {
        await entry.context.close();
        entry = undefined;
      }
      if (!entry) {
        const context = await browser.newContext(options.viewport ? { viewport: options.viewport } : {});
        const page = await context.newPage();
        /** @type {Kept} */
        const created = { context, page, hosts: new Set(), errors: [] };
        listenForErrors(page, () => created.errors);
        page.on('framenavigated', (frame) => {
          if (frame === page.mainFrame() && frame.url().startsWith('http')) created.hosts.add(new URL(frame.url()).host);
        });
        entry = created;
        kept.set(host, entry);
      }
      if (cookies) await entry.context.addCookies(cookies.map((c) => ({ ...c, url: new URL('/', url).href })));
      entry.errors = [];
      entry.hosts.clear();
      const response = await entry.page.goto(url);
      await entry.page.getByRole('heading', { level: 1 }).waitFor();
      return { page: entry.page, response, errors: entry.errors };
    },
    async close() {
      for (const { context } of kept.values()) await context.close();
      kept.clear();
    },
  };
}

/**
 * @typedef {object} FileSuite
 * @property {Server} server
 * @property {import('playwright-core').Browser} browser
 * @property {KeptPages} pages a page per host, opened afresh by each test
 */

/**
 * What most browser test files start with, awaited at their top level: the
 * server (startServer's options), the browser and its kept pages, and an
 * after() hook of the file that closes the browser and stops the server.
 * @param {Parameters<typeof startServer>[0]} [options]
 * @returns {Promise<FileSuite>}
 */
export async function startSuite(options) {
  const server = await startServer(options);
  /** @type {import('playwright-core').Browser} */
  let browser;
  try {
    browser = await startBrowser();
  } catch (error) {
    await server.stop();
    throw error;
  }
  after(() => server.stop());
  return { server, browser, pages: keptPages(browser) };
}

/**
 * The browser of a file whose servers are its suites' (serverForSuite),
 * awaited at its top level; an after() hook of the file closes it.
 */
export async function startBrowser() {
  const browser = await launchBrowser();
  after(() => browser.close());
  return browser;
}

/** The viewport of the narrowest phone (WCAG 1.4.10 reflow at 320 CSS px). */
export const PHONE_320 = { viewport: { width: 320, height: 640 } };

/**
 * A server of its own (a fresh database) for the tests of a describe(),
 * and a visitor's kept pages on it (keptPages' options): started by the
 * describe's before(), stopped by its after(). Its fields are set once
 * before() ran: read them in the tests.
 * @param {import('playwright-core').Browser} browser
 * @param {{ viewport?: { width: number; height: number } }} [pageOptions]
 * @returns {{ server: Server; visitor: KeptPages }}
 */
export function serverForSuite(browser, pageOptions = {}) {
  const suite = /** @type {{ server: Server; visitor: KeptPages }} */ ({});
  before(async () => {
    suite.server = await startServer();
    suite.visitor = keptPages(browser, pageOptions);
  });
  after(async () => {
    await suite.visitor?.close();
    await suite.server?.stop();
  });
  return suite;
}

/**
 * The page's path and query string.
 * @param {import('playwright-core').Page} page
 */
export const pathOf = (page) => new URL(page.url()).pathname + new URL(page.url()).search;

/**
 * Console errors other than the browser's note on an API answer with an
 * error status (a wrong password or code is a 400 by design).
 * @param {string[]} errors
 */
export const realErrors = (errors) => errors.filter((e) => !e.startsWith('Failed to load resource'));

/**
 * @typedef {{ id: string; to: string; subject: string; text: string; template: string }} Mail
 */

/**
 * The dev mailbox's messages (to one address when `to` is given), newest first.
 * @param {Server} server
 * @param {string} [to]
 * @returns {Promise<Mail[]>}
 */
export async function mailbox(server, to) {
  const query = to === undefined ? '' : `?to=${encodeURIComponent(to)}`;
  const response = await fetch(`http://127.0.0.1:${server.port}/_dev/mail.json${query}`);
  if (!response.ok) throw new Error(`/_dev/mail.json answered ${response.status}`);
  const mails = /** @type {Mail[]} */ (await response.json());
  for (const mail of mails) keepSecretsOf(mail.text);
  return mails;
}

/**
 * The ids of the dev mailbox's messages to an address so far: waitForMail's
 * `seen`, so that it waits for a message sent after this.
 * @param {Server} server
 * @param {string} to
 */
export async function seenMail(server, to) {
  return new Set((await mailbox(server, to)).map((mail) => mail.id));
}

/**
 * Waits (until's bound) for the newest message of a template to an address
 * that is not among `seen`, and adds it there (the outbox delivers in the
 * background).
 * @param {Server} server
 * @param {string} to
 * @param {string} template
 * @param {Set<string>} [seen] ids of messages already read
 * @returns {Promise<Mail>}
 */
export async function waitForMail(server, to, template, seen = new Set()) {
  /** @type {Mail[]} */
  let mails = [];
  /** @type {Mail | undefined} */
  let found;
  await until(
    async () => {
      mails = await mailbox(server, to);
      found = mails.find((m) => m.template === template && !seen.has(m.id));
      return found !== undefined;
    },
    `a new ${template} email to ${to}`,
    () => JSON.stringify(mails.map((m) => [m.template, m.id])),
  );
  const mail = /** @type {Mail} */ (found);
  seen.add(mail.id);
  return mail;
}

/**
 * Moves the --dev server's clock forward (POST /_dev/clock), so a test of an
 * expiry need not wait for it; resolves the clock's new time.
 * @param {Server} server
 * @param {string} advance a Go duration such as '21m'
 * @returns {Promise<Date>}
 */
export async function advanceClock(server, advance) {
  const response = await fetch(`http://127.0.0.1:${server.port}/_dev/clock`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ advance }),
  });
  if (!response.ok) throw new Error(`POST /_dev/clock answered ${response.status}`);
  return new Date(/** @type {{ now: string }} */ (await response.json()).now);
}

/**
 * The 6-digit code in a message.
 * @param {Mail} mail
 */
export function codeOf(mail) {
  const match = /\b(\d{6})\b/.exec(mail.text);
  if (!match?.[1]) throw new Error(`no 6-digit code in: ${mail.text}`);
  return match[1];
}

/**
 * What sticks out of a narrow page: the document's scroll width and every
 * visible element whose box passes the viewport's right or left edge.
 * @param {import('playwright-core').Page} page
 */
function overflow(page) {
  return page.evaluate(() => {
    const root = document.documentElement;
    const width = root.clientWidth;
    /** @param {Element | null} e */
    const hidden = (e) => {
      for (; e && e !== document.body; e = e.parentElement) {
        const box = e.getBoundingClientRect();
        if (getComputedStyle(e).overflow === 'hidden' && box.width <= 1 && box.height <= 1) return true;
      }
      return false;
    };
    /** @type {string[]} */
    const out = [];
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      // Visually hidden text (in a 1 px clipped box) is nothing a person sees.
      if (hidden(element)) continue;
      if (box.right > width + 0.5 || box.left < -0.5) {
        const name = element.tagName.toLowerCase() + (element.className && typeof element.className === 'string' ? `.${element.className.split(' ').join('.')}` : '');
        out.push(`${name} [${Math.round(box.left)}, ${Math.round(box.right)}]`);
      }
    }
    return { scrollWidth: root.scrollWidth, clientWidth: width, out };
  });
}

/**
 * @param {import('playwright-core').Page} page
 * @param {string} where
 */
export async function expectNoSidewaysScroll(page, where) {
  const { scrollWidth, clientWidth, out } = await overflow(page);
  if (scrollWidth > clientWidth) throw new Error(`${where}: the page scrolls sideways (${scrollWidth} > ${clientWidth} px)`);
  if (out.length > 0) throw new Error(`${where}: elements stick out of the ${clientWidth} px viewport: ${out.join(', ')}`);
}

/**
 * Waits until check() holds, polling every 50 ms (what a socket delivers
 * arrives on its own schedule), for up to HANG_MS: a bound on a hang, not
 * a measure of speed (CI, session 25: co-browse events reached the agent
 * after more than the 10 s a test's own loop allowed, with a load average
 * of 13). On a hang it says what it waited for and, when told how,
 * what it saw last.
 * @param {() => boolean | Promise<boolean>} check
 * @param {string} what
 * @param {() => string | Promise<string>} [seen]
 */
export async function until(check, what, seen) {
  const deadline = Date.now() + HANG_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${seen ? ` (last seen: ${await seen()})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Whether an image has loaded and has a size: it waits until the image is
 * complete (arrived or broken), however long a loaded machine takes (CI,
 * session 24: a logo read before it arrived), within the context's
 * timeout; a broken image is complete with no width.
 * @param {import('playwright-core').Locator} locator an <img>
 * @returns {Promise<boolean>}
 */
export async function imageLoaded(locator) {
  const img = await locator.elementHandle();
  await locator.page().waitForFunction((i) => /** @type {HTMLImageElement} */ (i).complete, img);
  return locator.evaluate((i) => /** @type {HTMLImageElement} */ (i).naturalWidth > 0);
}

/**
 * A press of the mouse at the middle of an element, as a person clicks.
 * @param {import('playwright-core').Page} page
 * @param {import('playwright-core').Locator} locator
 */
export async function press(page, locator) {
  await locator.scrollIntoViewIfNeeded();
  const box = await locator.boundingBox();
  if (!box) throw new Error('the element is not shown');
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
}

/**
 * The paths the page's main frame goes to from now on, client-side page
 * changes included, for a test to read once the page has arrived where it
 * should: a sign-in's form post must go straight to /my-account (issue 32:
 * a flow state cleared before the post let the page's guard show the login
 * page, its footer moving, while the server signed the visitor in).
 * @param {import('playwright-core').Page} page
 * @returns {string[]}
 */
export function pathsFrom(page) {
  /** @type {string[]} */
  const paths = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) paths.push(new URL(frame.url()).pathname);
  });
  return paths;
}

/**
 * Clicks into a field with the mouse and types into it.
 * @param {import('playwright-core').Page} page
 * @param {import('playwright-core').Locator} locator
 * @param {string} text
 */
export async function typeInto(page, locator, text) {
  await press(page, locator);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
}

/**
 * Waits for the page's h1, which a page change focuses (app/page-focus.ts),
 * and runs axe on the page.
 * @param {import('playwright-core').Page} page
 * @param {string} title
 * @param {{ focus?: boolean }} [options] focus: false for the first page of a visit (opened by its address)
 */
export async function arrive(page, title, { focus = true } = {}) {
  await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
  await expectNoSidewaysScroll(page, `${title} (${pathOf(page)})`);
  if (focus) {
    await page.waitForFunction((t) => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === t, title);
  }
  await checkA11y(page);
}

/**
 * Signs a policyholder in on the French login page of a brand and waits for
 * My account (the account's tests of issue 31).
 * @param {Server} server
 * @param {import('playwright-core').Page} page
 * @param {string} email
 * @param {string} password
 * @param {string} [brand]
 */
export async function signInToMyAccount(server, page, email, password, brand = 'belair') {
  await page.goto(server.url(brand, '/?lang=fr'));
  await page.getByLabel('Adresse courriel').fill(email);
  await page.getByLabel('Mot de passe', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Se connecter', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Mon compte' }).waitFor();
}
