// Browser test of the visitor's live chat (issue 17) against the built
// binary: the bubble on belair.localhost, the widget's states (axe on each),
// the message form on a Sunday (GUICHET_DEV_NOW) reaching the agents' queue,
// the chatbot answering then handing over, and no message lost or repeated
// while the visitor's network is down. The agent is the dev agent, signed in
// with a TOTP code on console.localhost and driven through the console's
// REST calls and the agent WebSocket, from a page of that origin.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { checkA11y, launchBrowser, realErrors, repoRoot, startServer, until } from './harness.mjs';
import { codes } from './totp.mjs';

/** @type {Record<string, string>} */
const en = JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n/sections/chat.en.json'), 'utf8'));
const AGENT = { email: 'agent@console.example', password: 'Guichet-Staff-2026!', name: 'Alex Agent' };
const AGENT_SECRET = 'GUICHETAGENTDEVTOTPSECRETAAAAAAA';

/** @type {import('playwright-core').Browser} */
let browser;

before(async () => {
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
});

/**
 * The server of the describe it is called in: started before its tests with
 * its clock at devNow (GUICHET_DEV_NOW), stopped after them.
 * @param {string} devNow
 * @returns {{ server: import('./harness.mjs').Server }} its server once the tests run
 */
function serverAt(devNow) {
  const at = /** @type {{ server: import('./harness.mjs').Server }} */ ({});
  before(async () => {
    at.server = await startServer({ env: { GUICHET_DEV_NOW: devNow } });
  });
  after(async () => {
    await at.server?.stop();
  });
  return at;
}

/**
 * The dev agent on console.localhost: signed in (password, then a TOTP
 * code), available in English and French, with the
 * agent socket open in the page (frames kept in window.agentFrames, a ping
 * every 10 s).
 * @param {{ server: import('./harness.mjs').Server }} at
 */
async function agent({ server }) {
  const agentCodes = codes(AGENT_SECRET); // TOTP stays on the real clock under GUICHET_DEV_NOW
  const context = await browser.newContext();
  const page = await context.newPage();
  const origin = `http://console.localhost:${server.port}`;
  await page.goto(`${origin}/`);
  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<{ status: number; body: any }>}
   */
  const call = (method, path, body) =>
    page.evaluate(
      async ({ method, path, body }) => {
        const response = await fetch(path, {
          method,
          headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await response.text();
        return { status: response.status, body: text ? JSON.parse(text) : null };
      },
      { method, path, body },
    );
  const signIn = await call('POST', '/api/console/v1/session', { email: AGENT.email, password: AGENT.password });
  assert.equal(signIn.status, 200, JSON.stringify(signIn.body));
  const factor = await call('POST', '/api/console/v1/session/totp', { code: await agentCodes() });
  assert.equal(factor.status, 200, JSON.stringify(factor.body));
  await page.evaluate(
    (url) =>
      new Promise((resolve, reject) => {
        const w = /** @type {any} */ (window);
        w.agentFrames = [];
        const ws = new WebSocket(url);
        w.agentSocket = ws;
        ws.onmessage = (event) => w.agentFrames.push(JSON.parse(event.data));
        ws.onopen = () => resolve(undefined);
        ws.onerror = () => reject(new Error('agent socket refused'));
        setInterval(() => ws.readyState === 1 && ws.send('{"type":"ping"}'), 10_000);
      }),
    `ws://console.localhost:${server.port}/api/console/v1/chat/socket`,
  );
  const available = await call('PUT', '/api/console/v1/chat/availability', { status: 'available', languages: ['en', 'fr'] });
  assert.equal(available.status, 200, JSON.stringify(available.body));
  return {
    context,
    call,
    /** @param {Record<string, unknown>} frame */
    send: (frame) => page.evaluate((f) => /** @type {any} */ (window).agentSocket.send(JSON.stringify(f)), frame),
    /** @returns {Promise<any[]>} */
    frames: () => page.evaluate(() => /** @type {any} */ (window).agentFrames),
    /**
     * Waits for a frame the predicate accepts (polling the page's list).
     * @param {(frame: any) => boolean} accept
     */
    async waitFrame(accept) {
      /** @type {any} */
      let found;
      await until(async () => {
        found = (await page.evaluate(() => /** @type {any} */ (window).agentFrames)).find(accept);
        return found !== undefined;
      }, 'such a frame on the agent socket');
      return found;
    },
  };
}

/**
 * A visitor's page on belair.localhost with the widget opened by its bubble.
 * @param {import('./harness.mjs').Server} server
 */
async function visitor(server) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  /** @type {string[]} */
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  /** @type {string[]} */
  const scripts = [];
  page.on('request', (request) => {
    if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
  });
  await page.goto(server.url('belair', '/'));
  await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  await page.waitForLoadState('networkidle');
  const initialScripts = [...scripts];
  const bubble = page.getByRole('button', { name: 'Chat with us' });
  await bubble.click();
  const dialog = page.getByRole('dialog', { name: en['chat.title'] });
  await dialog.waitFor();
  return { context, page, dialog, bubble, errors, initialScripts, scripts };
}

describe('on a Sunday (GUICHET_DEV_NOW)', () => {
  // Sunday 29 November 2026, 10:00 in Toronto: belair's Ontario chat is closed until Monday 8:00.
  const at = serverAt('2026-11-29T15:00:00Z');

  test('the bubble loads the widget on its press only; it says when chat reopens; the message form reaches the queue', async () => {
    const { context, page, dialog, errors, initialScripts, scripts } = await visitor(at.server);
    try {
      assert.ok(initialScripts.length >= 2, `scripts: ${initialScripts}`);
      assert.ok(!initialScripts.some((path) => /\/chat-widget-[\w-]+\.js$/.test(path)), `the login page loaded the widget: ${initialScripts}`);
      assert.ok(scripts.some((path) => /\/chat-widget-[\w-]+\.js$/.test(path)), `the press did not load the widget chunk: ${scripts}`);
      await dialog.getByText("We're back tomorrow at 8\u00a0a.m.").waitFor();
      const phone = dialog.getByRole('link', { name: '1 833-000-0102' });
      assert.match((await phone.getAttribute('href')) ?? '', /^tel:\+1\d{10}$/);
      // The popup of spec §4.5 on desktop.
      const box = await dialog.boundingBox();
      assert.deepEqual([box?.width, box?.height], [354, 500]);
      await checkA11y(page);
      // A phone: the whole screen.
      await page.setViewportSize({ width: 390, height: 844 });
      const full = await dialog.boundingBox();
      assert.deepEqual([full?.x, full?.y, full?.width, full?.height], [0, 0, 390, 844]);
      await checkA11y(page);
      await page.setViewportSize({ width: 1280, height: 800 });

      // belair has the bot: it still answers when closed, and the message form is one press away.
      await dialog.getByRole('button', { name: en['chat.offline.title'] }).click();
      await dialog.getByLabel(en['chat.form.name']).fill('Sunday Visitor');
      await dialog.getByLabel(en['chat.form.email']).fill('sunday.visitor@example.com');
      await dialog.getByLabel(en['chat.form.question']).fill('Can I add a driver to my policy?');
      await checkA11y(page);
      await dialog.getByRole('button', { name: en['chat.offline.send'] }).click();
      await dialog.getByText(/Thank you, Sunday Visitor\./).waitFor();

      const desk = await agent(at);
      try {
        const queue = await desk.call('GET', '/api/console/v1/chat/queue');
        assert.equal(queue.status, 200);
        const item = queue.body.offline.find((/** @type {any} */ i) => i.name === 'Sunday Visitor');
        assert.ok(item, JSON.stringify(queue.body));
        assert.equal(item.email, 'sunday.visitor@example.com');
        assert.equal(item.question, 'Can I add a driver to my policy?');
        assert.equal(item.page, '/');
        assert.equal(item.brand, 'belair');
      } finally {
        await desk.context.close();
      }
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
    }
  });
});

describe('on a Monday morning with an agent available', () => {
  // Monday 30 November 2026, 10:00 in Toronto.
  const at = serverAt('2026-11-30T15:00:00Z');

  test('the bot answers then hands over; an agent accepts; two messages sent while the visitor is offline arrive once, in order', async () => {
    const desk = await agent(at);
    const { context, page, dialog, errors } = await visitor(at.server);
    try {
      // Pre-chat.
      await dialog.getByRole('button', { name: en['chat.prechat.start'] }).click();
      await dialog.getByText(en['chat.error.name']).waitFor();
      await checkA11y(page);
      await dialog.getByLabel(en['chat.form.name']).fill('Ana Visitor');
      await dialog.getByLabel(en['chat.form.topic']).selectOption('password');
      await dialog.getByRole('button', { name: en['chat.prechat.start'] }).click();

      // The bot's welcome, then its answer.
      const log = dialog.getByRole('log');
      await log.getByRole('button', { name: 'I forgot my password' }).waitFor();
      const composer = dialog.getByLabel(en['chat.composer.label']);
      await composer.fill('How do I reset my password?');
      await composer.press('Enter');
      await page.waitForFunction(() => document.querySelectorAll('.chat-line--bot').length >= 2);
      const answer = (await log.locator('.chat-line--bot').nth(1).locator('.chat-line__body').textContent()) ?? '';
      assert.match(answer, /password/i);
      await checkA11y(page);

      // Handover: waiting, in line.
      await dialog.getByRole('button', { name: en['chat.handover'] }).click();
      await dialog.getByText("You're number 1 in line.").waitFor();

      const queue = await desk.call('GET', '/api/console/v1/chat/queue');
      const item = queue.body.waiting.find((/** @type {any} */ i) => i.name === 'Ana Visitor');
      assert.ok(item, JSON.stringify(queue.body));
      assert.equal(item.topic, 'password');
      const accepted = await desk.call('POST', `/api/console/v1/chat/conversations/${item.id}/accept`);
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      await log.getByText(`${AGENT.name} joined the chat.`).waitFor();
      await desk.send({ type: 'subscribe', conversationId: item.id, after: 0 });

      // The visitor's network drops while the agent sends two messages.
      await context.setOffline(true);
      await dialog.getByText(en['chat.connection.reconnecting']).waitFor();
      const texts = ['First, while you were away.', 'Second, while you were away.'];
      for (const [i, body] of texts.entries()) {
        await desk.send({ type: 'message', conversationId: item.id, clientId: `agent-offline-${i}`, body });
        await desk.waitFrame((f) => f.type === 'message' && f.clientId === `agent-offline-${i}` && typeof f.seq === 'number');
      }
      assert.equal(await log.getByText(texts[0]).count(), 0, 'a message arrived while offline');
      await context.setOffline(false);
      await log.getByText(texts[1]).waitFor();
      await dialog.getByText(en['chat.connection.reconnecting']).waitFor({ state: 'detached' });
      const bodies = await log.locator('.chat-line--agent .chat-line__body').allTextContents();
      assert.deepEqual(bodies, texts);
      await checkA11y(page);

      // The visitor ends the chat: a confirmation, then the rating.
      await dialog.getByRole('button', { name: en['chat.end'] }).click();
      await dialog.getByRole('button', { name: en['chat.end.yes'] }).click();
      await dialog.getByText(en['chat.ended.title']).waitFor();
      await dialog.getByRole('radio', { name: en['chat.rating.5'] }).check();
      await dialog.getByRole('button', { name: en['chat.rating.send'] }).click();
      await dialog.getByText(en['chat.rating.thanks']).waitFor();
      await checkA11y(page);

      // Escape closes the dialog and gives the focus back to the bubble.
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(await page.evaluate(() => document.activeElement?.className), 'chat-bubble');
      assert.deepEqual(realErrors(errors), []);
    } finally {
      await context.close();
      await desk.context.close();
    }
  });
});
