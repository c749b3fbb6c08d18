import { describe, expect, it } from 'vitest';
import { BLOCK_SELECTOR, INPUT_MASK, recordOptions } from './recorder';
import { recorderUnderTest } from './testing';

// rrweb's real recorder on jsdom's real DOM: what it emits is what the agent
// would get. The secrets are set as values and value attributes before the
// recorder starts, and typed after; none may appear in the events, masked
// fields show the fixed mask, whatever their length.

const SECRETS = {
  password: 'Hunter2-Secret!',
  code: '482913',
  pin: 'PIN7Q2ZX',
  birthDay: '17',
  birthYear: '1971',
  postal: 'H2X 1Y4',
  phone: '514-555-0199',
  licence: 'L1234-567890-12',
  policy: 'POL-9988776',
  privateText: 'Customer note 55-XYZ',
  note: 'my long free text answer',
};

function page() {
  document.body.innerHTML = `
    <main>
      <h1>Sign in</h1>
      <label for="email">Email</label><input id="email" type="email" value="visible@example.com">
      <label for="pw">Password</label><input id="pw" type="password" data-private value="${SECRETS.password}">
      <label for="pw2">Password shown</label><input id="pw2" type="text" data-private>
      <label for="code">Security code</label><input id="code" autocomplete="one-time-code" value="${SECRETS.code}">
      <label for="pin">PIN</label><input id="pin" autocomplete="one-time-code" data-private>
      <fieldset data-private><legend>Date of birth</legend>
        <input id="day" autocomplete="bday-day" value="${SECRETS.birthDay}">
        <select id="month" autocomplete="bday-month"><option value="">Choose</option><option value="03">March</option></select>
        <input id="year" autocomplete="bday-year">
      </fieldset>
      <label for="postal">Postal code</label><input id="postal" autocomplete="postal-code">
      <label for="phone">Phone</label><input id="phone" type="tel" autocomplete="tel-national" data-private>
      <label for="licence">Licence</label><input id="licence" autocomplete="off" data-private>
      <label for="policy">Policy number</label><input id="policy" autocomplete="off" data-private value="${SECRETS.policy}">
      <p data-private>${SECRETS.privateText}</p>
      <label for="note">Note</label><textarea id="note"></textarea>
      <label for="choice">Choice</label><select id="choice"><option value="">-</option><option value="c2">Second</option></select>
      <label for="name">Name</label><input id="name" value="Abc">
    </main>`;
}

function type(id: string, value: string) {
  const el = document.getElementById(id) as HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
  el.value = value;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

const recording = recorderUnderTest();

describe('the co-browse recorder', () => {
  it('has the options issue 18 asks for', () => {
    expect(recordOptions.maskAllInputs).toBe(true);
    expect(recordOptions.recordCanvas).toBe(false);
    expect(recordOptions.plugins).toEqual([]);
    expect(recordOptions.sampling).toMatchObject({ mousemove: 100, scroll: 150, input: 'last' });
    expect(recordOptions.maskInputFn()).toBe(INPUT_MASK);
    for (const selector of ['[data-private]', 'input[type=password]', '[autocomplete=one-time-code]', '[autocomplete=bday]', '[autocomplete=postal-code]', '[autocomplete=tel]']) {
      expect(BLOCK_SELECTOR.split(', ')).toContain(selector);
    }
  });

  it('sends no value, attribute or text of a private field, before or after recording starts, and masks the rest with a fixed mask', async () => {
    page();
    const { events, recorder } = recording.record();
    await flush();
    // What is typed into each field (by id) while recording, in this order.
    const typed = {
      pw: SECRETS.password,
      pw2: SECRETS.password,
      code: SECRETS.code,
      pin: SECRETS.pin,
      year: SECRETS.birthYear,
      month: '03',
      postal: SECRETS.postal,
      phone: SECRETS.phone,
      licence: SECRETS.licence,
      policy: SECRETS.policy,
      note: SECRETS.note,
      choice: 'c2',
      name: 'Abcdefghijklmnop',
    };
    for (const [id, value] of Object.entries(typed)) type(id, value);
    // A value attribute written while recording (a mutation) on a blocked field.
    document.getElementById('policy')!.setAttribute('value', SECRETS.policy);
    document.getElementById('code')!.setAttribute('data-hint', SECRETS.code);
    recorder.snapshot();
    await flush();

    const json = JSON.stringify(events);
    expect(events.length).toBeGreaterThan(2);
    // Short secrets as JSON strings (a bare "17" is in every timestamp).
    for (const [name, secret] of Object.entries(SECRETS)) expect(json, name).not.toContain(secret.length > 4 ? secret : JSON.stringify(secret));
    // The select's choice is masked too (its options are the page's, not the visitor's).
    expect(json).not.toContain('"text":"c2"');
    expect(json).toContain(`"id":"choice","value":"${INPUT_MASK}"`);
    expect(json).toContain(`"id":"note","value":"${INPUT_MASK}"`);
    expect(json).not.toContain('March');
    expect(json).not.toContain('visible@example.com');
    expect(json).not.toContain('Abcdefghijklmnop');
    // Masked, not removed: the fixed mask, never the real length.
    expect(json).toContain(INPUT_MASK);
    expect(json).not.toMatch(/\*{3,}/);
    // The page itself is sent.
    expect(json).toContain('Sign in');
    expect(json).toContain('Policy number');
  });

  it('records nothing once stopped', async () => {
    page();
    const { events } = recording.record();
    await flush();
    recording.stop();
    const count = events.length;
    document.querySelector('h1')!.textContent = 'Changed';
    type('name', 'Later');
    await flush();
    expect(events.length).toBe(count);
  });
});
