// Browser test of co-browse, the visitor's side (issue 18), against the built
// binary. Two contexts: the visitor on belair.localhost (the brand with the
// footer's screen-sharing link), the agent signed in to the console on
// console.localhost. The code flow goes through the console's pages (the
// Co-browse page's code form, the viewer with rrweb's replayer, End); what
// the visitor's browser sends and what the agent's receives are read from
// each page's CDP session (Network.webSocketFrameSent / Received), so nothing
// either side does escapes the check. The chat request's case drives the
// console API and the viewer socket from the agent's page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { arrive, checkA11y, openPage, pathOf, realErrors, repoRoot, siteConfig, startSuite, until, withOpenPage } from './harness.mjs';
import { signInStaff } from './staff.mjs';
import { codes } from './totp.mjs';

// A Wednesday at 15:00 in Toronto: chat is open by the hours (the chat request's case).
const DEV_NOW = '2026-11-25T15:00:00-05:00';

const { server, browser } = await startSuite({ env: { GUICHET_DEV_NOW: DEV_NOW } });

/** @type {Record<'en' | 'fr', Record<string, string>>} */
const text = {
  en: JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n/sections/cobrowse.en.json'), 'utf8')),
  fr: JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n/sections/cobrowse.fr.json'), 'utf8')),
};
/** @type {Record<string, string>} */
const consoleEn = JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n/sections/console.en.json'), 'utf8'));
const footerLink = { en: 'Screen sharing', fr: 'Partage d’écran' };
/** @type {Record<string, string>} */
const chatEn = JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n/sections/chat.en.json'), 'utf8'));
const fill = (/** @type {string} */ s, /** @type {Record<string, string>} */ params) => s.replace(/\{(\w+)\}/g, (_, k) => params[k] ?? '');

const nextCode = codes('GUICHETAGENTDEVTOTPSECRETAAAAAAA');

/** The agent, signed in to the console (password and TOTP), on its search page. */
async function agentSignedIn() {
  const { context, page, errors } = await openPage(browser, `http://console.localhost:${server.port}/sign-in`);
  await signInStaff(page, 'agent@console.example', nextCode, { focus: false });
  return { context, page, errors };
}

/**
 * `use` with the agent signed in (agentSignedIn); the agent's context is
 * closed whatever happens.
 * @param {(agent: Awaited<ReturnType<typeof agentSignedIn>>) => Promise<void>} use
 */
async function withAgent(use) {
  const agent = await agentSignedIn();
  try {
    await use(agent);
  } finally {
    await agent.context.close();
  }
}

/**
 * The agent types the code on the console's Co-browse page and lands on the viewer; every
 * WebSocket frame the agent's page receives is kept (CDP), across the viewer's document load.
 * @param {{ context: import('playwright-core').BrowserContext; page: import('playwright-core').Page }} agent
 * @param {string} code
 */
async function agentJoinsInConsole(agent, code) {
  const cdp = await agent.context.newCDPSession(agent.page);
  /** @type {string[]} */
  const received = [];
  cdp.on('Network.webSocketFrameReceived', (e) => received.push(e.response.payloadData));
  await cdp.send('Network.enable');
  await agent.page.getByRole('link', { name: consoleEn['console.nav.cobrowse'], exact: true }).click();
  await arrive(agent.page, consoleEn['console.cobrowse.join.title']);
  await agent.page.getByLabel(consoleEn['console.cobrowse.join.code'], { exact: true }).fill(code);
  await agent.page.getByRole('button', { name: consoleEn['console.cobrowse.join.submit'] }).click();
  await agent.page.getByRole('heading', { level: 1, name: consoleEn['console.cobrowse.viewer.title'] }).waitFor();
  return { received };
}

/** @param {import('playwright-core').Page} agent */
const viewerFrames = (agent) => agent.evaluate(() => /** @type {string[]} */ (/** @type {any} */ (window).viewerFrames));

/**
 * Records every WebSocket frame the page sends and every WebSocket it opens, from its CDP session.
 * @param {import('playwright-core').BrowserContext} context
 * @param {import('playwright-core').Page} page
 */
async function wireTap(context, page) {
  const cdp = await context.newCDPSession(page);
  /** @type {string[]} */
  const frames = [];
  /** @type {string[]} */
  const sockets = [];
  /** @type {string[]} */
  const requests = [];
  cdp.on('Network.webSocketFrameSent', (e) => frames.push(e.response.payloadData));
  cdp.on('Network.webSocketCreated', (e) => sockets.push(e.url));
  page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
  await cdp.send('Network.enable');
  return { frames, sockets, requests };
}

/**
 * The visitor opens the consent dialog from the footer link.
 * @param {import('playwright-core').Page} page
 * @param {'en' | 'fr'} lang
 */
async function openConsent(page, lang = 'en') {
  await page.getByRole('contentinfo').getByRole('link', { name: footerLink[lang] }).click();
  const dialog = page.getByRole('dialog', { name: text[lang]['cobrowse.consent.title'] });
  await dialog.waitFor();
  return dialog;
}

/**
 * Accept, then the code as shown (digits only).
 * @param {import('playwright-core').Page} page
 * @param {'en' | 'fr'} lang
 */
async function acceptAndReadCode(page, lang = 'en') {
  const dialog = await openConsent(page, lang);
  await dialog.getByRole('button', { name: text[lang]['cobrowse.consent.accept'] }).click();
  const codeDialog = page.getByRole('dialog', { name: text[lang]['cobrowse.code.title'] });
  await codeDialog.waitFor();
  const shown = await codeDialog.locator('.cobrowse-code [aria-hidden=true]').textContent();
  assert.match(shown ?? '', /^\d{3} \d{3}$/);
  return { codeDialog, code: (shown ?? '').replace(' ', '') };
}

describe('co-browse, the visitor side', () => {
  test('Decline sends nothing: no co-browse call, no socket, no frame', () =>
    withOpenPage(browser, server.url('belair', '/'), {}, async ({ context, page, errors }) => {
      const tap = await wireTap(context, page);
      const dialog = await openConsent(page);
      await checkA11y(page);
      await dialog.getByRole('button', { name: text.en['cobrowse.consent.decline'] }).click();
      await dialog.waitFor({ state: 'detached' });
      // Escape declines too.
      await openConsent(page);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      // Whatever the page would have sent has had a round trip to go (a request made now would come after this one).
      await page.evaluate(() => fetch('/readyz'));
      assert.deepEqual(tap.requests.filter((r) => r.includes('/api/') && r.includes('cobrowse')), []);
      assert.deepEqual(tap.sockets.filter((u) => u.includes('/cobrowse')), []);
      assert.deepEqual(tap.frames, []);
      assert.equal(await page.evaluate(() => sessionStorage.getItem('guichet.cobrowse.live')), null);
      assert.deepEqual(realErrors(errors), []);
    }));

  test('the code flow: the agent joins, the banner names them, and what the visitor types on sign-in, recovery and registration never leaves the browser; Stop ends it for both', () =>
    withAgent(async (agent) => {
      await withOpenPage(browser, server.url('belair', '/'), {}, async ({ context, page, errors }) => {
        const tap = await wireTap(context, page);
        const { codeDialog, code } = await acceptAndReadCode(page);
        await checkA11y(page);
        assert.equal(await codeDialog.getByRole('status').textContent(), text.en['cobrowse.status.waiting']);
        // Nothing recorded before a viewer asks: the socket carries no event.
        await until(async () => tap.sockets.some((u) => u.endsWith('/api/v1/cobrowse/socket')), 'the visitor socket');

        const viewer = await agentJoinsInConsole(agent, code);
        const agentReceived = async () => viewer.received;
        await codeDialog.getByRole('status').filter({ hasText: /^Sharing with / }).waitFor();
        const agentName = ((await codeDialog.getByRole('status').textContent()) ?? '').replace('Sharing with ', '');
        assert.ok(agentName);
        await codeDialog.getByRole('button', { name: text.en['cobrowse.code.close'] }).click();
        const banner = page.getByRole('region', { name: text.en['cobrowse.banner.label'] });
        await banner.getByText(fill(text.en['cobrowse.banner.sharing'], { agent: agentName })).waitFor();
        await checkA11y(page);
        // The recorder started on the viewer's snapshot request: the agent gets the page.
        await until(async () => (await agentReceived()).some((f) => f.includes('"type":"event"') && f.includes('Sign in')), 'the full snapshot at the agent');
        // The replayer shows the visitor's page; the viewer passes axe.
        await agent.page.frameLocator('iframe').first().getByText('Sign in').first().waitFor();
        await checkA11y(agent.page);

        const SECRETS = { password: 'Zq9!secret-Password-771', code: '318274', policy: 'PX7731904' };
        // Sign-in: the password.
        await page.getByLabel('Email address').fill('visitor@example.com');
        await page.getByLabel('Password', { exact: true }).fill(SECRETS.password);
        // Recovery's code page, by the SPA's links (the banner stays).
        await page.getByRole('link', { name: 'Forgot your password?' }).click();
        await page.getByRole('heading', { level: 1, name: 'Forgot your password?' }).waitFor();
        await page.getByLabel('Email address').fill('nobody@belair.example');
        await page.getByRole('button', { name: 'Send me a code' }).click();
        await page.getByRole('heading', { level: 1, name: 'Enter your security code' }).waitFor();
        assert.equal(pathOf(page), '/verify');
        await banner.getByText(fill(text.en['cobrowse.banner.sharing'], { agent: agentName })).waitFor();
        await page.getByLabel('Security code', { exact: true }).pressSequentially(SECRETS.code);
        // Registration identification, by a full load: the banner and the recording come back.
        await page.goto(server.url('belair', '/registration/identification'));
        await page.getByRole('heading', { level: 1 }).waitFor();
        await banner.getByText(fill(text.en['cobrowse.banner.sharing'], { agent: agentName })).waitFor();
        const policyField = page.getByLabel(/Policy number/);
        assert.equal(await policyField.getAttribute('data-private'), 'policyNumber');
        const policyName = await policyField.getAttribute('name');
        await policyField.pressSequentially(SECRETS.policy);
        await page.getByLabel(/First name/).fill('Visible');
        // Everything sent has reached the agent: the masked first name, and as many events as the browser sent.
        const events = (/** @type {string[]} */ frames) => frames.filter((f) => f.startsWith('{"type":"event"')).length;
        // (The first name, typed last, is on the wire masked: what was typed before it is too.)
        const firstName = await page.getByLabel(/First name/).getAttribute('name');
        await until(async () => tap.frames.some((f) => f.includes('••••••') && f.includes(`"name":"${firstName}"`)), 'the masked first name');
        await until(
          async () => events(await agentReceived()) === events(tap.frames),
          'every event at the agent',
          async () => `${events(await agentReceived())} events at the agent, ${events(tap.frames)} sent`,
        );

        const sent = tap.frames.join('\n');
        const received = (await agentReceived()).join('\n');
        const replayed = await agent.page.frameLocator('iframe').first().locator('html').innerHTML();
        for (const [name, secret] of Object.entries(SECRETS)) assert.ok(!replayed.includes(secret), `${name} in the agent's replay`);
        assert.ok(tap.frames.filter((f) => f.startsWith('{"type":"event"')).length > 5, 'events were sent');
        for (const [name, secret] of Object.entries(SECRETS)) {
          assert.ok(!sent.includes(secret), `${name} in a frame the browser sent`);
          assert.ok(!received.includes(secret), `${name} in what the agent received`);
        }
        assert.ok(!sent.includes('Visible'), 'a plain input is masked too');
        // Private fields are blocked, not only masked: an empty placeholder in their place, none of their attributes.
        for (const attribute of ['"type":"password"', '"autocomplete":"one-time-code"', `"name":"${policyName}"`]) {
          assert.ok(!sent.includes(attribute), `${attribute} in a frame the browser sent`);
        }
        assert.ok(sent.includes('rr_width'), 'blocked elements are placeholders');
        assert.ok(received.includes('••••••'), 'masked inputs show the fixed mask');

        // Stop on the visitor's side ends it for both.
        await banner.getByRole('button', { name: text.en['cobrowse.banner.stop'] }).click();
        await banner.getByText(text.en['cobrowse.banner.ended']).waitFor();
        await agent.page.getByText(fill(consoleEn['console.cobrowse.viewer.ended'], { reason: consoleEn['console.cobrowse.reason.visitor'] })).waitFor();
        assert.ok((await agentReceived()).some((f) => f.includes('"status":"ended"') && f.includes('"reason":"visitor"')));
        assert.equal(await page.evaluate(() => sessionStorage.getItem('guichet.cobrowse.live')), null);
        assert.equal(await page.getByRole('button', { name: text.en['cobrowse.banner.stop'] }).count(), 0);
        assert.deepEqual(realErrors(errors), []);
      });
    }));

  test('the agent ends it: the banner goes for the visitor too; dialogs and banner pass axe in French', () =>
    withAgent(async (agent) => {
      await withOpenPage(browser, server.url('belair', '/?lang=fr'), {}, async ({ page, errors }) => {
        const consent = await openConsent(page, 'fr');
        await checkA11y(page);
        await consent.getByRole('button', { name: text.fr['cobrowse.consent.accept'] }).click();
        const codeDialog = page.getByRole('dialog', { name: text.fr['cobrowse.code.title'] });
        await codeDialog.waitFor();
        await checkA11y(page);
        const code = ((await codeDialog.locator('.cobrowse-code [aria-hidden=true]').textContent()) ?? '').replace(' ', '');
        await agentJoinsInConsole(agent, code);
        await codeDialog.getByRole('button', { name: text.fr['cobrowse.code.close'] }).click();
        const banner = page.getByRole('region', { name: text.fr['cobrowse.banner.label'] });
        await banner.getByText(/^Vous partagez cette page avec /).waitFor();
        await checkA11y(page);

        // The agent's pointer over the replay shows as a highlight on the visitor's page.
        const stage = agent.page.getByRole('region', { name: consoleEn['console.cobrowse.viewer.stage'] });
        await agent.page.frameLocator('iframe').first().locator('h1').first().waitFor();
        const box = await stage.boundingBox();
        assert.ok(box);
        await agent.page.mouse.move(box.x + 40, box.y + 40);
        await agent.page.mouse.move(box.x + 60, box.y + 50);
        await page.getByTestId('cobrowse-pointer').waitFor({ state: 'attached' });

        await agent.page.getByRole('button', { name: consoleEn['console.cobrowse.viewer.end'] }).click();
        await banner.getByText(text.fr['cobrowse.banner.ended']).waitFor();
        assert.equal(await page.getByRole('button', { name: text.fr['cobrowse.banner.stop'] }).count(), 0);
        await checkA11y(page);
        // A reload brings nothing back.
        await page.reload();
        await page.getByRole('heading', { level: 1 }).waitFor();
        assert.equal(await page.getByRole('region', { name: text.fr['cobrowse.banner.label'] }).count(), 0);
        assert.deepEqual(realErrors(errors), []);
      });
    }));

  test('an agent asks in chat: the request in the widget opens the consent dialog; Accept shares with that agent', () =>
    withAgent(async (agent) => {
      await agent.page.getByRole('link', { name: consoleEn['console.nav.chat'], exact: true }).click();
      await arrive(agent.page, consoleEn['console.chat.title']);
      await agent.page.getByRole('radio', { name: consoleEn['console.chat.availability.available'], exact: true }).check();
      await withOpenPage(browser, server.url('belair', '/'), {}, async ({ context, page, errors }) => {
        const tap = await wireTap(context, page);
        // The visitor asks for a person over the chat API (the widget shows the cookie's conversation when opened).
        const config = await siteConfig(page);
        const started = await page.evaluate(async ({ apiKey }) => {
          const headers = { 'Content-Type': 'application/json', 'X-API-KEY': apiKey, province: 'ON', language: 'en' };
          const post = async (/** @type {string} */ path, /** @type {unknown} */ body) => {
            const res = await fetch(`/api/v1${path}`, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
            return { status: res.status, data: await res.json().catch(() => null) };
          };
          const start = await post('/chat/conversations', { name: 'Rémi', topic: 'Sign in', page: '/' });
          if (start.data?.status === 'bot') await post('/chat/conversation/handover', undefined);
          return start;
        }, { apiKey: config.brand.apiKey });
        assert.ok(started.status === 201 || started.status === 200, JSON.stringify(started));
        const accept = agent.page.getByRole('button', { name: fill(consoleEn['console.chat.accept'], { name: 'Rémi' }) });
        await accept.click();
        await page.getByRole('button', { name: 'Chat with us' }).click();
        const widget = page.getByRole('dialog', { name: chatEn['chat.title'] });
        await widget.getByRole('log').waitFor();

        const asked = await agent.page.evaluate(async (id) => {
          const res = await fetch(`/api/console/v1/chat/conversations/${id}/cobrowse`, { method: 'POST' });
          return { status: res.status, body: await res.json() };
        }, started.data.id);
        assert.equal(asked.status, 201, JSON.stringify(asked.body));
        await widget.getByText(chatEn['chat.system.cobrowseRequest']).waitFor();
        // Nothing of co-browse went out before the answer.
        assert.deepEqual(tap.sockets.filter((u) => u.includes('/cobrowse')), []);
        await widget.getByRole('button', { name: chatEn['chat.cobrowse.review'] }).click();
        const consent = page.getByRole('dialog', { name: text.en['cobrowse.consent.title'] });
        await consent.getByText(text.en['cobrowse.consent.chatIntro']).waitFor();
        await checkA11y(page);
        await consent.getByRole('button', { name: text.en['cobrowse.consent.accept'] }).click();
        await consent.waitFor({ state: 'detached' });
        const banner = page.getByRole('region', { name: text.en['cobrowse.banner.label'] });
        await banner.getByText(fill(text.en['cobrowse.banner.sharing'], { agent: asked.body.agentName })).waitFor();
        await widget.getByText(fill(chatEn['chat.system.cobrowseAccepted'], { name: asked.body.agentName })).waitFor();
        assert.equal(await widget.getByRole('button', { name: chatEn['chat.cobrowse.review'] }).count(), 0);

        // The agent's viewer gets the page.
        await agent.page.evaluate((id) => {
          const w = /** @type {any} */ (window);
          w.viewerFrames = [];
          const ws = new WebSocket(`ws://${location.host}/api/console/v1/cobrowse/sessions/${id}/socket?after=0`);
          ws.onmessage = (e) => w.viewerFrames.push(String(e.data));
          w.viewer = ws;
        }, asked.body.id);
        await until(async () => (await viewerFrames(agent.page)).some((f) => f.includes('"type":"event"') && f.includes('Sign in')), 'the full snapshot at the agent');

        await banner.getByRole('button', { name: text.en['cobrowse.banner.stop'] }).click();
        await banner.getByText(text.en['cobrowse.banner.ended']).waitFor();
        await widget.getByText(chatEn['chat.system.cobrowseEnded']).waitFor();
        assert.deepEqual(realErrors(errors), []);
      });
    }));
});
