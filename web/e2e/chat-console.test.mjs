// Browser test of the agents' side of live chat (issue 17) against the built
// binary, with GUICHET_DEV_NOW on a Wednesday at 15:00 in Toronto (chat open
// by the hours). Two browser contexts: the agent in the staff console on
// console.localhost, the visitor on belair.localhost. The visitor drives the
// public chat API from its page (fetch and the WebSocket, same origin, the
// chat cookie), as the widget does; the agent uses the console only. Axe runs
// on each console chat view.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { arrive, checkA11y, openPage, realErrors, repoRoot, siteConfig, startSuite } from './harness.mjs';
import { signInStaff } from './staff.mjs';
import { codes } from './totp.mjs';

const DEV_NOW = '2026-11-25T15:00:00-05:00';

const { server, browser } = await startSuite({ env: { GUICHET_DEV_NOW: DEV_NOW } });

/** @type {Record<string, string>} */
const en = JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n/sections/console.en.json'), 'utf8'));

/**
 * A message with its {placeholders} filled.
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 */
const m = (key, params = {}) => en[key].replace(/\{(\w+)\}/g, (_, name) => String(params[name]));

const staff = {
  agent: { email: 'agent@console.example', next: codes('GUICHETAGENTDEVTOTPSECRETAAAAAAA') },
  supervisor: { email: 'supervisor@console.example', next: codes('GUICHETSUPERVISORDEVTOTPSECRETAA') },
};

/**
 * A staff member signed in (password and TOTP code) and on the Chat page, by the nav.
 * @param {keyof typeof staff} who
 */
async function agentOnChat(who) {
  const { context, page, errors } = await openPage(browser, `http://console.localhost:${server.port}/sign-in`);
  await signInStaff(page, staff[who].email, staff[who].next, { focus: false });
  await page.getByRole('link', { name: en['console.nav.chat'], exact: true }).click();
  await arrive(page, en['console.chat.title']);
  return { context, page, errors };
}

/**
 * Goes available, for the languages given.
 * @param {import('playwright-core').Page} page
 * @param {('en' | 'fr')[]} languages
 */
async function goAvailable(page, languages) {
  for (const [code, label] of /** @type {const} */ ([['en', 'English'], ['fr', 'Français']])) {
    const box = page.getByRole('checkbox', { name: label, exact: true });
    if ((await box.isChecked()) !== languages.includes(code)) await box.click();
  }
  await page.getByRole('radio', { name: en['console.chat.availability.available'], exact: true }).check();
  const names = languages.map((l) => en[`console.chat.language.${l}`]).join(', ');
  await page.getByText(m('console.chat.availability.isAvailable', { languages: names })).waitFor();
}

/**
 * A visitor on a brand's portal who talks over the public chat API from the
 * page: POST /api/v1/chat/conversations (the cookie), the hand-over, the
 * socket. Frames received are kept in the page.
 * @param {string} brand
 * @param {string} province
 * @param {'en' | 'fr'} language
 */
async function visitor(brand, province, language) {
  const opened = await openPage(browser, server.url(brand, '/'));
  const { page } = opened;
  const config = await siteConfig(page);
  await page.evaluate(
    ({ apiKey, province, language }) => {
      const w = /** @type {any} */ (window);
      const headers = { 'Content-Type': 'application/json', 'X-API-KEY': apiKey, province: province.toUpperCase(), language };
      w.__chat = {
        frames: [],
        /** @param {string} method @param {string} path @param {unknown} [body] */
        async call(method, path, body) {
          const response = await fetch(`/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
          const text = await response.text();
          return { status: response.status, data: text ? JSON.parse(text) : null };
        },
        connect() {
          const ws = new WebSocket(`ws://${location.host}/api/v1/chat/socket?after=0`);
          ws.onmessage = (event) => w.__chat.frames.push(JSON.parse(event.data));
          w.__chat.ws = ws;
          return new Promise((resolve, reject) => {
            ws.onopen = resolve;
            ws.onerror = reject;
          });
        },
        /** @param {unknown} frame */
        send(frame) {
          w.__chat.ws.send(JSON.stringify(frame));
        },
      };
    },
    { apiKey: config.brand.apiKey, province, language },
  );
  /**
   * @param {string} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<{ status: number; data: any }>}
   */
  const call = (method, path, body) => page.evaluate(({ method, path, body }) => /** @type {any} */ (window).__chat.call(method, path, body), { method, path, body });
  return {
    ...opened,
    call,
    /** Starts a conversation and asks for a person (belair has the bot first). */
    async start(/** @type {string} */ name, /** @type {string} */ topic) {
      const config = await call('GET', '/salesforceConfig');
      assert.equal(config.status, 200);
      assert.equal(config.data.chat.open, true, `chat is open: ${JSON.stringify(config.data.chat)}`);
      const started = await call('POST', '/chat/conversations', { name, topic, page: '/login', roadblock: 'locked' });
      assert.ok(started.status === 201 || started.status === 200, `start answered ${started.status} ${JSON.stringify(started.data)}`);
      if (started.data.status === 'bot') assert.equal((await call('POST', '/chat/conversation/handover')).status, 200);
      await page.evaluate(() => /** @type {any} */ (window).__chat.connect());
      return started.data.id;
    },
    /** @param {unknown} frame */
    send: (frame) => page.evaluate((f) => /** @type {any} */ (window).__chat.send(f), frame),
    /**
     * Waits for a frame whose fields equal those of `match` (and whose seq is
     * above `after`, when given); resolves it. (The page's CSP allows no eval.)
     * @param {Record<string, unknown>} match
     * @param {number} [after]
     */
    async frame(match, after) {
      const handle = await page.waitForFunction(
        ({ match, after }) =>
          /** @type {any} */ (window).__chat.frames.find(
            (/** @type {Record<string, unknown>} */ f) => Object.entries(match).every(([k, v]) => f[k] === v) && (after === undefined || Number(f.seq) > after),
          ) ?? null,
        { match, after },
      );
      return handle.jsonValue();
    },
  };
}

describe('the agents’ chat in the console', () => {
  test('a visitor chats with an agent in French: queue, accept, messages both ways, typing, read, canned reply, end', async () => {
    const agent = await agentOnChat('agent');
    await goAvailable(agent.page, ['en', 'fr']);
    await checkA11y(agent.page);

    const élise = await visitor('belair', 'qc', 'fr');
    const id = await élise.start('Élise', 'Connexion');
    // The queue updates live: Élise waits on the agent's page.
    const accept = agent.page.getByRole('button', { name: m('console.chat.accept', { name: 'Élise' }) });
    await accept.waitFor();
    await checkA11y(agent.page);
    await accept.click();
    // Accepting moves the focus to the message box.
    const box = agent.page.getByRole('textbox', { name: m('console.chat.composer.label', { name: 'Élise' }) });
    await agent.page.waitForFunction((label) => document.activeElement?.tagName === 'TEXTAREA' && document.activeElement.id !== '' && document.querySelector(`label[for="${document.activeElement.id}"]`)?.textContent === label, m('console.chat.composer.label', { name: 'Élise' }));
    const conversation = agent.page.getByRole('article', { name: m('console.chat.conversation.title', { name: 'Élise' }) });
    await conversation.getByText('/login').waitFor();
    await conversation.getByText('locked').waitFor();
    await élise.frame({ type: 'state', status: 'active' });

    // Agent → visitor.
    await box.fill('Bonjour Élise, je regarde votre dossier.');
    await élise.frame({ type: 'typing', on: true });
    await box.press('Enter');
    const first = await élise.frame({ type: 'message', sender: 'agent', body: 'Bonjour Élise, je regarde votre dossier.' });
    const log = agent.page.getByRole('log', { name: m('console.chat.transcript.label', { name: 'Élise' }) });
    await log.getByText(en['console.chat.receipt.sent']).waitFor();

    // Visitor → agent: typing, then a message with an address and markup kept as text; then read.
    await élise.send({ type: 'typing', on: true });
    await agent.page.getByText(m('console.chat.typing.visitor', { name: 'Élise' })).waitFor();
    await élise.send({ type: 'message', clientId: 'c0ffee00-0000-4000-8000-000000000001', body: 'Merci! Mon compte est verrouillé <b>depuis</b> hier: https://belairdirect.com/fr' });
    await log.getByText('Merci! Mon compte est verrouillé <b>depuis</b> hier:', { exact: false }).waitFor();
    const link = log.getByRole('link', { name: 'https://belairdirect.com/fr' });
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer nofollow');
    assert.equal(await log.locator('b').count(), 0);
    await élise.send({ type: 'read', seq: first.seq });
    await log.getByText(en['console.chat.receipt.read']).waitFor();
    // The agent's page read the visitor's message: the visitor is told.
    await élise.frame({ type: 'read' }, first.seq);

    // A canned reply of belair in French goes into the box, then out.
    await agent.page.getByText(en['console.chat.canned.title']).click();
    const canned = agent.page.getByRole('button', { name: /^Insérer|^Insert/ }).first();
    const cannedText = (await canned.textContent()) ?? '';
    assert.notEqual(cannedText, '');
    await canned.click();
    assert.equal(await box.inputValue(), cannedText);
    await box.press('Enter');
    await élise.frame({ type: 'message', sender: 'agent', body: cannedText });
    await checkA11y(agent.page);

    // End, after a confirmation.
    await agent.page.getByRole('button', { name: en['console.chat.end.open'] }).click();
    const dialog = agent.page.getByRole('dialog', { name: en['console.chat.end.title'] });
    await checkA11y(agent.page);
    await dialog.getByRole('button', { name: en['console.chat.end.submit'] }).click();
    await agent.page.getByText(m('console.chat.done.ended', { name: 'Élise' })).waitFor();
    await élise.frame({ type: 'state', status: 'ended' });
    assert.ok(id);

    assert.deepEqual(realErrors(agent.errors), []);
    await agent.context.close();
    await élise.context.close();
  });

  test('two agents accept at once: one holds the chat, the other is told another agent took it; the supervisor sees the figures and the transcript', async () => {
    const agent = await agentOnChat('agent');
    const supervisor = await agentOnChat('supervisor');
    await goAvailable(agent.page, ['en']);
    await goAvailable(supervisor.page, ['en']);

    const sam = await visitor('belair', 'on', 'en');
    await sam.start('Sam', 'Password');
    const name = m('console.chat.accept', { name: 'Sam' });
    await agent.page.getByRole('button', { name }).waitFor();
    await supervisor.page.getByRole('button', { name }).waitFor();
    // Both click at once: each page's accept call is held until both are on their way, so
    // the server, not the order the clicks reached the pages, picks the winner (a queue frame
    // after the first accept would otherwise remove the other's row before its click).
    /** @type {() => void} */
    let release = () => {};
    const bothSent = new Promise((resolve) => {
      release = () => resolve(undefined);
    });
    let sent = 0;
    for (const page of [agent.page, supervisor.page]) {
      await page.route('**/api/console/v1/chat/conversations/*/accept', async (route) => {
        sent += 1;
        if (sent === 2) release();
        await bothSent;
        await route.continue();
      });
    }
    await Promise.all([agent.page, supervisor.page].map((page) => page.getByRole('button', { name }).click()));
    await bothSent;
    const holds = async (/** @type {import('playwright-core').Page} */ page) => {
      const box = page.getByRole('textbox', { name: m('console.chat.composer.label', { name: 'Sam' }) });
      const taken = page.getByText(en['console.chat.error.alreadyTaken']);
      await box.or(taken).first().waitFor();
      return box.isVisible();
    };
    const [agentHolds, supervisorHolds] = await Promise.all([holds(agent.page), holds(supervisor.page)]);
    assert.notEqual(agentHolds, supervisorHolds, 'exactly one agent holds the chat');
    const loser = agentHolds ? supervisor.page : agent.page;
    const winner = agentHolds ? agent.page : supervisor.page;
    assert.equal(await loser.getByText(en['console.chat.error.alreadyTaken']).getAttribute('role'), 'alert');
    // The loser's queue no longer offers Sam.
    await loser.getByRole('button', { name }).waitFor({ state: 'detached' });
    await checkA11y(loser);

    // The winner writes; the visitor gets it.
    await winner.getByRole('textbox', { name: m('console.chat.composer.label', { name: 'Sam' }) }).fill('Hello Sam, how can I help?');
    await winner.keyboard.press('Enter');
    await sam.frame({ type: 'message', sender: 'agent', body: 'Hello Sam, how can I help?' });

    // The supervisor's figures: one active chat, the agents present.
    await supervisor.page.getByRole('link', { name: en['console.nav.chatFigures'], exact: true }).click();
    await arrive(supervisor.page, en['console.chat.figures.title']);
    await supervisor.page.waitForFunction(() => document.querySelector('[data-testid="figures-active"]')?.textContent === '1');
    const agents = supervisor.page.getByRole('table', { name: en['console.chat.figures.agents'] });
    await agents.getByRole('cell', { name: en['console.chat.availability.available'] }).first().waitFor();

    // The transcript, found by a word of it.
    await supervisor.page.getByRole('link', { name: en['console.nav.chatTranscripts'], exact: true }).click();
    await arrive(supervisor.page, en['console.chat.transcripts.title']);
    await supervisor.page.getByLabel(en['console.chat.transcripts.query']).fill('how can I help');
    await supervisor.page.getByRole('button', { name: en['console.chat.transcripts.submit'] }).click();
    await supervisor.page.getByRole('button', { name: m('console.chat.transcripts.view', { name: 'Sam' }) }).click();
    await supervisor.page.getByRole('log').getByText('Hello Sam, how can I help?').waitFor();
    await checkA11y(supervisor.page);

    assert.deepEqual(realErrors(agent.errors), []);
    assert.deepEqual(realErrors(supervisor.errors), []);
    await agent.context.close();
    await supervisor.context.close();
    await sam.context.close();
  });
});
