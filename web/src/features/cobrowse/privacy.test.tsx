import { render, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { interpolate, type MessageKey, type MessageParams } from '@/i18n/catalog';
import { english } from '@/i18n/english';
import fr from '@/i18n/fr.json';
import { MessagesContext, type Translate } from '@/i18n/i18n';
import cobrowseEn from '@/i18n/sections/cobrowse.en.json';
import cobrowseFr from '@/i18n/sections/cobrowse.fr.json';
import { Private } from '@/i18n/private-text';
import { AGENT_NEVER_SEES, AGENT_SEES, INPUT_MASK, PRIVATE_KINDS, privateKinds, privateMark } from '@/lib/cobrowse/privacy';
import { postToSso } from '@/lib/flow/sso-form';
import { SiteProvider } from '@/lib/site/site-context';
import { belair, siteConfig } from '@/test/site-fixture';
import { agentNeverSeesLines, agentSeesLines, ConsentDialog } from './dialogs';
import { BLOCK_SELECTOR, isMasked, recordOptions, scrubEvent } from './recorder';
import { recorderUnderTest } from './testing';

// The one list (lib/cobrowse/privacy.ts) against the consent dialog's words
// and the recorder's behaviour: what the dialog promises is what the list
// says, and what the list says is what leaves the browser.

const catalogues = { en: cobrowseEn as Record<string, string>, fr: cobrowseFr as Record<string, string> };

function translate(language: 'en' | 'fr'): Translate {
  const messages: Record<string, string> = { ...english, ...catalogues[language] };
  return (key: MessageKey, params?: MessageParams) => interpolate(messages[key] ?? key, params);
}

describe("the consent dialog's promise", () => {
  it.each(['en', 'fr'] as const)('in %s, has one line per entry of the list, naming every private kind, each from the catalogue', (language) => {
    const t = translate(language);
    const sees = agentSeesLines(t);
    const never = agentNeverSeesLines(t, language);
    expect(sees).toHaveLength(AGENT_SEES.length);
    expect(never).toHaveLength(AGENT_NEVER_SEES.length);
    for (const line of [...sees, ...never]) {
      expect(line).not.toMatch(/cobrowse\.|\{/); // a missing key or an unfilled placeholder
    }
    // Every kind the components can mark is named on its group's line.
    for (const [group, kinds] of Object.entries(PRIVATE_KINDS)) {
      const line = never[AGENT_NEVER_SEES.indexOf(group as (typeof AGENT_NEVER_SEES)[number])]!;
      for (const kind of kinds) expect(line, `${language} ${kind}`).toContain(catalogues[language][`cobrowse.privacy.kind.${kind}`]);
    }
  });

  it.each(['en', 'fr'] as const)('renders exactly those lines in the dialog, in %s', (language) => {
    const t = translate(language);
    const { container } = render(
      <SiteProvider config={siteConfig({ brand: belair, language, province: 'on' })}>
        <MessagesContext value={{ ...english, ...(language === 'fr' ? fr : {}), ...catalogues[language] }}>
          <ConsentDialog fromChat={false} busy={false} error={null} onAccept={() => {}} onDecline={() => {}} />
        </MessagesContext>
      </SiteProvider>,
    );
    const items = within(container).getAllByRole('listitem').map((li) => li.textContent);
    expect(items).toEqual([...agentSeesLines(t), ...agentNeverSeesLines(t, language)]);
    expect(items.join('\n')).toContain(catalogues[language]['cobrowse.privacy.kind.policyNumber']);
  });
});

describe('what the recorder sends', () => {
  const recording = recorderUnderTest();

  it('blocks an element of every private kind, and masks every input type, hidden included', () => {
    for (const kind of privateKinds()) {
      const el = document.createElement('span');
      Object.entries(privateMark(kind)).forEach(([name, value]) => el.setAttribute(name, value));
      expect(el.matches(BLOCK_SELECTOR), kind).toBe(true);
    }
    for (const type of ['hidden', 'text', 'email', 'password', 'tel', 'number', 'search', 'url', 'date', 'textarea', 'select']) {
      expect((recordOptions.maskInputOptions as Record<string, boolean>)[type], type).toBe(true);
    }
  });

  it("sends none of the customer's values, no hidden input's value and nothing of the sign-in post", async () => {
    const secrets = { name: 'Jeanne Tremblay', email: 'jeanne@example.com', policy: 'BEL-1000', hidden: 'H1dden-S3cret', password: 'Hunter2-Secret!', ticket: 'T1cket-XYZ' };
    render(
      <main>
        <h1>My account</h1>
        <p>
          Welcome, <Private kind="name">{secrets.name}</Private>
        </p>
        <dd {...privateMark('email')}>{secrets.email}</dd>
        <span {...privateMark('policyNumber')}>{secrets.policy}</span>
        <input type="hidden" name="h" defaultValue={secrets.hidden} />
      </main>,
    );
    const { events, recorder } = recording.record();
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The sign-in post while recording (its submit is the browser's; jsdom's is a no-op here).
    const submit = vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(() => {});
    const hidden = document.createElement('input');
    hidden.type = 'hidden';
    document.body.append(hidden);
    hidden.value = 'typed-later-99';
    hidden.setAttribute('value', 'attr-later-77');
    postToSso('/pkmslogin.form', { username: secrets.email, password: secrets.password, ticket: secrets.ticket });
    submit.mockRestore();
    await new Promise((resolve) => setTimeout(resolve, 0));
    recorder.snapshot();
    const json = JSON.stringify(events);
    for (const [name, secret] of Object.entries({ ...secrets, later: 'typed-later-99', attr: 'attr-later-77' })) expect(json, name).not.toContain(secret);
    expect(json).toContain('My account');
    expect(json).toContain('Welcome, ');
    expect(json).toContain(INPUT_MASK);
  });

  it('scrubs what rrweb would let through: value attributes, input texts, the address query', () => {
    const full = scrubEvent({ type: 2, data: { node: { childNodes: [{ tagName: 'input', attributes: { type: 'radio', value: 'secret-1' }, childNodes: [] }] } } });
    expect(JSON.stringify(full)).not.toContain('secret-1');
    const mutation = scrubEvent({ type: 3, data: { source: 0, adds: [{ node: { tagName: 'input', attributes: { value: 'a1' } } }], attributes: [{ id: 3, attributes: { value: 'b2', class: 'x' } }] } });
    expect(JSON.stringify(mutation)).not.toMatch(/a1|b2/);
    expect(JSON.stringify(mutation)).toContain('"class":"x"');
    expect(scrubEvent({ type: 3, data: { source: 5, text: 'typed', id: 4 } }).data.text).toBe(INPUT_MASK);
    expect(scrubEvent({ type: 3, data: { source: 5, text: '', id: 4 } }).data.text).toBe('');
    expect(scrubEvent({ type: 4, data: { href: 'http://belair.localhost/registration/link?token=abc#x', width: 1 } }).data.href).toBe('http://belair.localhost/registration/link');
    expect([isMasked(INPUT_MASK), isMasked(''), isMasked(null), isMasked('•x'), isMasked(1)]).toEqual([true, true, true, false, false]);
  });
});
