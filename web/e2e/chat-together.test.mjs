// Browser test of live chat end to end (issue 17) against the built binary,
// both sides through their real pages only: the dev agent in the staff
// console on console.localhost, a visitor in French on belair.localhost
// (Québec) in the widget of the bubble. The server's clock is a Thursday at
// 15:00 in Toronto (GUICHET_DEV_NOW: chat open by the hours). The visitor
// talks to the bot, asks for a person, waits in line; the agent accepts;
// they write both ways (typing shown each way); the agent ends; the visitor
// rates the chat and gets the French transcript by email (the dev mailbox).
// Axe runs on every view of both sides.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { arrive, checkA11y, openPage, realErrors, repoRoot, startSuite, waitForMail } from './harness.mjs';
import { signInStaff } from './staff.mjs';
import { codes } from './totp.mjs';

// Thursday 26 November 2026, 15:00 in Toronto: belair's Québec chat is open (8:00–20:00).
const DEV_NOW = '2026-11-26T15:00:00-05:00';

const { server, browser } = await startSuite({ env: { GUICHET_DEV_NOW: DEV_NOW } });

/**
 * @param {string} file
 * @returns {Record<string, string>}
 */
const catalogue = (file) => JSON.parse(readFileSync(join(repoRoot, 'web/src/i18n', file), 'utf8'));
/** The console's texts (the agent reads the console in English). */
const consoleEn = catalogue('sections/console.en.json');
/** The widget's texts, and the shell's, in French (the visitor's language). */
const fr = { ...catalogue('fr.json'), ...catalogue('sections/chat.fr.json') };

/**
 * A message of a catalogue with its {placeholders} filled.
 * @param {Record<string, string>} texts
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 */
function fill(texts, key, params = {}) {
  const text = texts[key];
  if (text === undefined) throw new Error(`no message ${key}`);
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name]));
}
/** @param {string} key @param {Record<string, string | number>} [params] */
const c = (key, params) => fill(consoleEn, key, params);
/** @param {string} key @param {Record<string, string | number>} [params] */
const v = (key, params) => fill(fr, key, params);

const AGENT = { email: 'agent@console.example', password: 'Guichet-Staff-2026!', name: 'Alex Agent', next: codes('GUICHETAGENTDEVTOTPSECRETAAAAAAA') };
const VISITOR = { name: 'Élodie Tremblay', email: 'elodie.tremblay@example.com' };

test('a visitor in French and the dev agent chat through their pages: bot, queue, accept, messages and typing both ways, end, rating, transcript by email', async () => {
  // The agent signs in (password, then a TOTP code on the real clock) and goes available in French.
  const agent = await openPage(browser, `http://console.localhost:${server.port}/sign-in`);
  const desk = agent.page;
  await signInStaff(desk, AGENT.email, AGENT.next, { password: AGENT.password, focus: false });
  await desk.getByRole('link', { name: c('console.nav.chat'), exact: true }).click();
  await arrive(desk, c('console.chat.title'));
  const english = desk.getByRole('checkbox', { name: 'English', exact: true });
  const french = desk.getByRole('checkbox', { name: 'Français', exact: true });
  if (await english.isChecked()) await english.click();
  if (!(await french.isChecked())) await french.click();
  await desk.getByRole('radio', { name: c('console.chat.availability.available'), exact: true }).check();
  await desk.getByText(c('console.chat.availability.isAvailable', { languages: c('console.chat.language.fr') })).waitFor();

  // The visitor, in Québec in French, opens the bubble: the pre-chat.
  const visitor = await openPage(browser, server.url('belair', '/?province=qc&lang=fr'), { viewport: { width: 1280, height: 800 } });
  const page = visitor.page;
  await page.getByRole('button', { name: v('chatBubble.open'), exact: true }).click();
  const dialog = page.getByRole('dialog', { name: v('chat.title') });
  await dialog.getByRole('heading', { name: v('chat.prechat.title') }).waitFor();
  await checkA11y(page);

  await dialog.getByLabel(v('chat.form.name')).fill(VISITOR.name);
  await dialog.getByLabel(v('chat.form.topic')).selectOption({ label: v('chat.topic.signIn') });
  await dialog.getByRole('button', { name: v('chat.prechat.start') }).click();

  // The bot greets; the visitor asks for a person in its words and is put in line.
  const log = dialog.getByRole('log', { name: v('chat.log') });
  const composer = dialog.getByLabel(v('chat.composer.label'));
  await dialog.getByRole('button', { name: v('chat.handover') }).waitFor();
  await log.getByText(v('chat.sender.bot')).first().waitFor();
  await composer.fill('Je veux parler à un conseiller');
  await composer.press('Enter');
  await log.getByRole('listitem').filter({ hasText: v('chat.sender.visitor') }).filter({ hasText: 'Je veux parler à un conseiller' }).waitFor();
  await dialog.getByText(v('chat.queue', { position: 1 })).waitFor();
  await checkA11y(page);

  // The agent sees the visitor in the queue (live) and accepts.
  const accept = desk.getByRole('button', { name: c('console.chat.accept', { name: VISITOR.name }) });
  await accept.click();
  const box = desk.getByRole('textbox', { name: c('console.chat.composer.label', { name: VISITOR.name }) });
  await box.waitFor();
  const transcript = desk.getByRole('log', { name: c('console.chat.transcript.label', { name: VISITOR.name }) });
  await transcript.getByText('Je veux parler à un conseiller').waitFor();

  // The visitor is told who joined; the waiting line goes away.
  await log.getByText(v('chat.system.agentJoined', { name: AGENT.name })).waitFor();
  await dialog.getByText(v('chat.queue', { position: 1 })).waitFor({ state: 'detached' });

  // Agent → visitor: the visitor sees the agent typing, then the agent's name and text.
  const hello = 'Bonjour Élodie, je suis là pour vous aider. Que se passe-t-il avec votre connexion?';
  await box.pressSequentially('Bonjour');
  await dialog.getByText(v('chat.typing', { name: AGENT.name })).waitFor();
  await box.fill(hello);
  await box.press('Enter');
  const agentLine = log.getByRole('listitem').filter({ hasText: hello });
  await agentLine.waitFor();
  await agentLine.getByText(AGENT.name, { exact: true }).waitFor();
  await dialog.getByText(v('chat.typing', { name: AGENT.name })).waitFor({ state: 'detached' });

  // Visitor → agent: the agent sees the visitor typing, then the text.
  const answer = 'Mon compte est verrouillé depuis hier soir.';
  await composer.pressSequentially('Mon compte');
  await desk.getByText(c('console.chat.typing.visitor', { name: VISITOR.name })).waitFor();
  await composer.fill(answer);
  await composer.press('Enter');
  await transcript.getByText(answer).waitFor();
  await log.getByRole('listitem').filter({ hasText: v('chat.sender.visitor') }).filter({ hasText: answer }).waitFor();
  await checkA11y(page);
  await checkA11y(desk);

  // One more from the agent, then the agent ends the chat (after a confirmation).
  const bye = 'Votre compte est déverrouillé. Bonne journée!';
  await box.fill(bye);
  await box.press('Enter');
  await log.getByRole('listitem').filter({ hasText: bye }).waitFor();
  await desk.getByRole('button', { name: c('console.chat.end.open') }).click();
  const confirm = desk.getByRole('dialog', { name: c('console.chat.end.title') });
  await confirm.getByRole('button', { name: c('console.chat.end.submit') }).click();
  await desk.getByText(c('console.chat.done.ended', { name: VISITOR.name })).waitFor();

  // The visitor sees the end, rates the chat and asks for the transcript.
  await dialog.getByText(v('chat.ended.title')).waitFor();
  await log.getByText(v('chat.system.ended')).waitFor();
  assert.equal(await composer.count(), 0, 'the composer is gone once the chat ended');
  await checkA11y(page);
  const rating = dialog.getByRole('radiogroup', { name: v('chat.rating.legend') });
  await rating.getByRole('radio', { name: v('chat.rating.4') }).check();
  await dialog.getByRole('button', { name: v('chat.rating.send') }).click();
  await dialog.getByText(v('chat.rating.thanks')).waitFor();
  await dialog.getByLabel(v('chat.transcript.label')).fill(VISITOR.email);
  await dialog.getByRole('button', { name: v('chat.transcript.send') }).click();
  await dialog.getByText(v('chat.transcript.sent', { email: VISITOR.email })).waitFor();
  await checkA11y(page);

  // The transcript email, in French, holds the whole conversation.
  const mail = await waitForMail(server, VISITOR.email, 'chat-transcript');
  assert.equal(mail.subject, 'belairdirect\u00a0: votre conversation de clavardage');
  assert.match(mail.text, /voici une copie de votre conversation avec notre équipe/);
  for (const line of [
    `${VISITOR.name}\u00a0: Je veux parler à un conseiller`,
    `${AGENT.name} a rejoint la conversation`,
    `${AGENT.name}\u00a0: ${hello}`,
    `${VISITOR.name}\u00a0: ${answer}`,
    `${AGENT.name}\u00a0: ${bye}`,
    'La conversation est terminée',
  ]) {
    assert.ok(mail.text.includes(line), `the transcript lacks “${line}”:\n${mail.text}`);
  }
  assert.ok(mail.text.indexOf(hello) < mail.text.indexOf(answer) && mail.text.indexOf(answer) < mail.text.indexOf(bye), mail.text);

  assert.deepEqual(realErrors(agent.errors), []);
  assert.deepEqual(realErrors(visitor.errors), []);
  await agent.context.close();
  await visitor.context.close();
});
