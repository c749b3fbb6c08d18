// Browser test of co-browse's agent side (issue 18) against the built
// binary. The visitor's side is played here (the portal's recorder is built
// in parallel; this test does not depend on it): a belair page in French
// starts a session with the brand's API key headers, opens the visitor
// socket with its co-browse cookie and Origin, and on the server's
// `snapshot` frame records with rrweb (its real recorder, loaded into the
// page) — the page's events go to the socket as the recorder would send
// them. The dev agent signs in on console.localhost, a wrong code is
// refused, the right one opens the viewer: the visitor's DOM is replayed
// in rrweb's sandboxed iframe (no scripts), the agent's pointer reaches the
// visitor's socket in the visitor's page coordinates, End ends the
// visitor's socket (state ended, close 1000). Axe on the join page and the
// viewer; no console error (a CSP refusal of the replay's styles shows
// there).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { arrive, checkA11y, openPage, realErrors, repoRoot, siteConfig, startSuite } from './harness.mjs';
import { signInStaff } from './staff.mjs';
import { codes } from './totp.mjs';

const { server, browser } = await startSuite();

/** @type {Record<string, string>} */
const consoleEn = JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n/sections/console.en.json'), 'utf8'));
/** @param {string} key @param {Record<string, string | number>} [params] */
function c(key, params = {}) {
  const text = consoleEn[key];
  if (text === undefined) throw new Error(`no message ${key}`);
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name]));
}

/** rrweb's recorder (the version the replayer of the console is built with). */
const rrwebSource = readFileSync(join(repoRoot, 'web/node_modules/rrweb/dist/rrweb.umd.min.cjs'), 'utf8');

const AGENT = { email: 'agent@console.example', password: 'Guichet-Staff-2026!', next: codes('GUICHETAGENTDEVTOTPSECRETAAAAAAA') };
const MARKER = 'Co-browse check: the page the visitor sees';

/**
 * The visitor: a belair page in French (Québec), its co-browse session
 * (code shown to read to the agent) and its socket, whose frames (both
 * ways) and close code the page keeps in window.cobrowse.
 */
async function visitor() {
  // The portal's CSP allows only its own nonce'd scripts: the test's recorder is let in.
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  await page.goto(server.url('belair', '/?province=qc&lang=fr'));
  await page.getByRole('heading', { level: 1 }).waitFor();
  const config = await siteConfig(page);
  await page.addScriptTag({ content: rrwebSource });
  /** @type {{ id: string; code: string; status: string }} */
  const started = await page.evaluate(
    async ({ apiKey, marker }) => {
      // At the end of the main area (as tall as the window, so nothing moves):
      // put first, it pushed the login form down (CLS 0.026, issue 32).
      const marked = document.createElement('p');
      marked.textContent = marker;
      document.querySelector('main')?.append(marked);
      const res = await fetch('/api/v1/cobrowse/sessions', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-KEY': apiKey, province: 'QC', language: 'fr' },
        body: '{}',
      });
      const body = await res.json();
      /** @type {any} */ (window).cobrowse = { received: [], sent: 0, closed: null, reason: '' };
      const state = /** @type {any} */ (window).cobrowse;
      const ws = new WebSocket(`ws://${location.host}/api/v1/cobrowse/socket`);
      /** @type {(() => void) | null} */
      let stop = null;
      ws.onmessage = (ev) => {
        const frame = JSON.parse(ev.data);
        state.received.push(frame);
        if (frame.type !== 'snapshot') return;
        if (stop) /** @type {any} */ (window).rrweb.record.takeFullSnapshot(true);
        else
          stop = /** @type {any} */ (window).rrweb.record({
            /** @param {any} event */
            emit(event) {
              state.sent++;
              // The server refuses an address with a query and any unmasked value
              // attribute (an <option>'s too), as the portal's scrubEvent does (issue 26).
              if (event.type === 4) event.data.href = location.origin + location.pathname;
              /** @param {any} node */
              const scrub = (node) => {
                if (!node) return;
                if (node.attributes && typeof node.attributes.value === 'string' && node.attributes.value !== '') node.attributes.value = '••••••';
                for (const child of node.childNodes ?? []) scrub(child);
              };
              scrub(event.data?.node);
              for (const add of event.data?.adds ?? []) scrub(add.node);
              for (const change of event.data?.attributes ?? []) scrub(change);
              ws.send(JSON.stringify({ type: 'event', data: event }));
            },
            maskAllInputs: true,
            // The server accepts no other mask than the portal's.
            maskInputFn: () => '••••••',
            recordCanvas: false,
          });
      };
      ws.onclose = (ev) => {
        state.closed = ev.code;
        stop?.();
      };
      return { ...body, status: body.status ?? String(res.status) };
    },
    { apiKey: config.brand.apiKey, marker: MARKER },
  );
  assert.equal(started.status, 'waiting');
  assert.match(started.code, /^[0-9]{6}$/);
  await page.waitForFunction(() => /** @type {any} */ (window).cobrowse.received.some((/** @type {any} */ f) => f.type === 'state' && f.status === 'waiting'));
  return { context, page, started };
}

/**
 * The frames the visitor's socket received.
 * @param {import('playwright-core').Page} page
 * @returns {Promise<any[]>}
 */
const received = (page) => page.evaluate(() => /** @type {any} */ (window).cobrowse.received);

const SUPERVISOR = { email: 'supervisor@console.example', password: 'Guichet-Staff-2026!', next: codes('GUICHETSUPERVISORDEVTOTPSECRETAA') };

/**
 * A staff member signed in on the console (password, then a TOTP code of the real clock).
 * @param {{ email: string; password: string; next: () => Promise<string> }} who
 */
async function signIn(who) {
  const opened = await openPage(browser, `http://console.localhost:${server.port}/sign-in`, { viewport: { width: 1280, height: 900 } });
  const desk = opened.page;
  await signInStaff(desk, who.email, who.next, { password: who.password, focus: false });
  return opened;
}

test("another staff member's viewer is refused for good (4409, said, no reconnection), and leaves the viewer's page by a document load", async () => {
  const { context, page, started } = await visitor();
  const agent = await signIn(AGENT);
  await agent.page.goto(`http://console.localhost:${server.port}/cobrowse`);
  await arrive(agent.page, c('console.cobrowse.join.title'));
  await agent.page.getByLabel(c('console.cobrowse.join.code')).fill(started.code);
  await agent.page.getByRole('button', { name: c('console.cobrowse.join.submit') }).click();
  await page.waitForFunction(() => /** @type {any} */ (window).cobrowse.received.some((/** @type {any} */ f) => f.type === 'state' && f.status === 'active'));

  // The supervisor (every brand) opens the agent's session: refused after the upgrade, 4409.
  const sup = await signIn(SUPERVISOR);
  /** @type {number[]} */
  const closes = [];
  let sockets = 0;
  sup.page.on('websocket', (ws) => {
    if (!ws.url().includes('/cobrowse/sessions/')) return;
    sockets++;
    ws.on('close', () => closes.push(sockets));
  });
  // The page's timers run on a clock the test moves: a reconnection is a timer.
  await sup.page.clock.install();
  await sup.page.goto(`http://console.localhost:${server.port}/cobrowse/sessions/${started.id}?brand=belair&language=fr`);
  await arrive(sup.page, c('console.cobrowse.viewer.title'), { focus: false });
  await sup.page.getByRole('status').filter({ hasText: c('console.cobrowse.viewer.notHolder') }).waitFor();
  // A reconnecting viewer would open another socket within its first backoff (≤ 0.5 s) and
  // go on trying; a minute of the page's time runs every timer due in it (a new socket is
  // reported before runFor returns). The agent's session goes on meanwhile (its own
  // viewer's page is not touched).
  await sup.page.clock.runFor(60_000);
  assert.equal(sockets, 1);
  assert.equal(closes.length, 1);
  await checkA11y(sup.page);

  // Leaving the viewer's page (its looser style policy) loads a new document.
  await sup.page.evaluate(() => {
    /** @type {any} */ (window).viewerDocument = true;
  });
  await sup.page.getByRole('link', { name: c('console.nav.chat'), exact: true }).click();
  await sup.page.waitForURL('**/chat');
  await sup.page.waitForLoadState('load');
  assert.equal(await sup.page.evaluate(() => /** @type {any} */ (window).viewerDocument), undefined);

  // The test's clock is a script Playwright adds to every frame; the replay's
  // sandboxed frame (no allow-scripts) refuses it, as it refuses every script.
  const sandboxRefusal = /^Blocked script execution in 'about:blank' because the document's frame is sandboxed/;
  assert.deepEqual(realErrors(sup.errors).filter((e) => !sandboxRefusal.test(e)), []);
  await sup.context.close();
  await agent.context.close();
  await context.close();
});

test('the agent joins a visitor by code and watches the replayed page; the pointer reaches the visitor; End ends it for both', async () => {
  const { context, page, started } = await visitor();

  // The agent signs in (password, then a TOTP code of the real clock) and opens Co-browse.
  const agent = await signIn(AGENT);
  const desk = agent.page;
  await desk.getByRole('link', { name: c('console.nav.cobrowse'), exact: true }).click();
  await arrive(desk, c('console.cobrowse.join.title'));

  // A wrong code is refused, said in the alert, the field marked.
  const code = desk.getByLabel(c('console.cobrowse.join.code'));
  const wrong = String((Number(started.code) + 1) % 1_000_000).padStart(6, '0');
  await code.fill(wrong);
  await desk.getByRole('button', { name: c('console.cobrowse.join.submit') }).click();
  await desk.getByRole('alert').filter({ hasText: c('console.cobrowse.error.invalidCode') }).waitFor();
  assert.equal(await code.getAttribute('aria-invalid'), 'true');
  await checkA11y(desk);

  // The right code opens the viewer, its own page load.
  await code.fill(started.code);
  await desk.getByRole('button', { name: c('console.cobrowse.join.submit') }).click();
  await desk.waitForURL(`**/cobrowse/sessions/${started.id}?brand=belair&language=fr`);
  await arrive(desk, c('console.cobrowse.viewer.title'), { focus: false });
  await page.waitForFunction(() => /** @type {any} */ (window).cobrowse.received.some((/** @type {any} */ f) => f.type === 'state' && f.status === 'active'));

  // The viewer asked for a snapshot; the recorder's events are replayed.
  await desk.getByRole('status').filter({ hasText: c('console.cobrowse.viewer.active', { brand: 'belair', language: c('console.chat.language.fr') }) }).waitFor();
  const frame = desk.frameLocator(`iframe[title="${c('console.cobrowse.viewer.frame')}"]`);
  await frame.getByText(MARKER).waitFor();
  assert.deepEqual(
    (await received(page)).filter((/** @type {any} */ f) => f.type === 'error'),
    [],
    'the server refused none of the stand-in recorder’s frames',
  );
  const iframe = desk.locator(`iframe[title="${c('console.cobrowse.viewer.frame')}"]`);
  assert.equal(await iframe.getAttribute('sandbox'), 'allow-same-origin');
  // The replayed document runs no script: the page's own scripts are not in it as scripts.
  assert.equal(await frame.locator('script').count(), 0);
  // The replay is scaled to fit the stage (1200 px wide page, narrower stage).
  const stage = desk.getByRole('region', { name: c('console.cobrowse.viewer.stage') });
  const box = await stage.boundingBox();
  assert.ok(box && box.width < 1200, `stage ${box?.width} px wide`);
  // A change on the visitor's page shows too.
  await page.evaluate(() => {
    const p = document.createElement('p');
    p.textContent = 'A second line, added later';
    document.querySelector('main')?.append(p);
  });
  await frame.getByText('A second line, added later').waitFor();
  await checkA11y(desk);

  // The agent's pointer reaches the visitor, in the visitor's page coordinates.
  const replayBox = await iframe.boundingBox();
  assert.ok(replayBox);
  const scale = replayBox.width / 1200;
  await desk.mouse.move(replayBox.x + 300 * scale, replayBox.y + 200 * scale);
  await page.waitForFunction(() => /** @type {any} */ (window).cobrowse.received.some((/** @type {any} */ f) => f.type === 'pointer'));
  const pointer = (await received(page)).find((/** @type {any} */ f) => f.type === 'pointer');
  assert.ok(Math.abs(pointer.data.x - 300) <= 2 && Math.abs(pointer.data.y - 200) <= 2, JSON.stringify(pointer));

  // End: the visitor's socket gets the ended state, then 1000.
  await desk.getByRole('button', { name: c('console.cobrowse.viewer.end') }).click();
  await desk.getByRole('status').filter({ hasText: c('console.cobrowse.viewer.ended', { reason: c('console.cobrowse.reason.agent') }) }).waitFor();
  await page.waitForFunction(() => /** @type {any} */ (window).cobrowse.closed !== null);
  const frames = await received(page);
  const ended = frames.filter((/** @type {any} */ f) => f.type === 'state').at(-1);
  assert.deepEqual([ended.status, ended.reason], ['ended', 'agent']);
  assert.equal(await page.evaluate(() => /** @type {any} */ (window).cobrowse.closed), 1000);
  await desk.getByRole('link', { name: c('console.cobrowse.viewer.back') }).waitFor();
  // Focus went from End to the link that replaced it, not to <body>.
  assert.equal(await desk.evaluate(() => document.activeElement?.textContent), c('console.cobrowse.viewer.back'));
  await checkA11y(desk);

  assert.deepEqual(realErrors(agent.errors), []);
  await agent.context.close();
  await context.close();
});
