import { describe, expect, it } from 'vitest';
import { guardRedirect, hasLinkToken, mayOpen, needsRegistration, REGISTRATION_PAGES, registrationPageOf, type GuardedPage } from './registration-guard';

// Spec §2.4's guard table, row by row, written out here independently of
// the module's data: for each page, the previous pages that open it. Every
// other previous page (each registration page, login, a roadblock, none:
// the page opened by its address) redirects to /.
const V = ['validation', 'validation/sms', 'validation/email', 'validation/pin'];
const rows: { page: GuardedPage; table: string[]; flow: string[] }[] = [
  // | validation | identification, sms, email, pin |
  { page: 'validation', table: ['identification', 'validation/sms', 'validation/email', 'validation/pin'], flow: [] },
  // | sms | identification, validation, email, account-creation password/email/new-email |
  {
    page: 'validation/sms',
    table: ['identification', ...V, 'account-creation/password', 'account-creation/email', 'account-creation/new-email'],
    flow: [],
  },
  // | pin | identification, validation, email, account-creation password/email |
  { page: 'validation/pin', table: ['identification', ...V, 'account-creation/password', 'account-creation/email'], flow: [] },
  // | email | identification, validation, account-creation password/new-email |  (§4.2: ask-email-code from account-creation/email)
  {
    page: 'validation/email',
    table: ['identification', ...V, 'account-creation/password', 'account-creation/new-email'],
    flow: ['account-creation/email'],
  },
  // | account-creation/email | validation/email |  (§4.2: a single ask-email after identification; 240 ask-email after a code)
  { page: 'account-creation/email', table: ['validation/email'], flow: ['identification', 'validation/sms', 'validation/pin'] },
  // | new-email | password or validation/email |  (§4.2: 240 ask-username after a code; token action ask-username;
  // an email proved by link, taken meanwhile)
  {
    page: 'account-creation/new-email',
    table: ['account-creation/password', 'validation/email'],
    flow: ['validation/sms', 'validation/pin', 'link', 'confirm-email'],
  },
  // | password | validation |  (§4.2: token action default-password-register; an email proved by link)
  { page: 'account-creation/password', table: V, flow: ['link', 'confirm-email'] },
  // | roadblock no-options and pin-difficulties | validation |  (§4.2: no option after identification)
  { page: 'roadblock/no-options', table: V, flow: ['identification'] },
  { page: 'roadblock/pin-difficulties', table: V, flow: [] },
];

const previous: (string | null)[] = [...REGISTRATION_PAGES.map((p) => `/registration/${p}`), '/', '/roadblock/technical', '/registration/zzz', null];
/** /webseal.do (SSO 0x00000000 with an email token held) opens what the link's entry opens. */
const fromWebseal: Partial<Record<GuardedPage, boolean>> = { 'account-creation/new-email': true, 'account-creation/password': true };

describe('spec §2.4 guard table', () => {
  const cases = rows.flatMap(({ page, table, flow }) =>
    previous.map((from) => {
      const name = from?.replace('/registration/', '') ?? '';
      return { page, from, opens: table.includes(name) || flow.includes(name) };
    }),
  );

  it.each(cases)('$page from $from: $opens', ({ page, from, opens }) => {
    expect(mayOpen(page, from)).toBe(opens);
  });

  it.each(rows.map((r) => r.page))('%s from /webseal.do opens only for an email token action', (page) => {
    expect(mayOpen(page, '/webseal.do')).toBe(fromWebseal[page] === true);
    expect(mayOpen(page, '/webseal.do/')).toBe(fromWebseal[page] === true);
  });

  it.each(['identification', 'password-validation', 'email-sent', 'link', 'confirm-email'] as const)('%s is not guarded', (page) => {
    for (const from of previous) expect(mayOpen(page, from)).toBe(true);
  });

  it('a trailing slash names the same page', () => {
    expect(registrationPageOf('/registration/validation/')).toBe('validation');
    expect(mayOpen('validation', '/registration/identification/')).toBe(true);
  });

  it('a refused page goes to / keeping the query string', () => {
    expect(guardRedirect('')).toBe('/');
    expect(guardRedirect('?lang=fr&province=qc')).toBe('/?lang=fr&province=qc');
    expect(guardRedirect('lang=fr')).toBe('/?lang=fr');
  });
});

describe('arrival conditions beside the table', () => {
  it('every page past identification needs a registration under way, email-sent included; the two links start or name one', () => {
    expect(REGISTRATION_PAGES.filter((p) => !needsRegistration(p))).toEqual(['identification', 'link', 'confirm-email']);
    expect(needsRegistration('email-sent')).toBe(true);
  });

  it.each([
    { search: '?token=abc&src=edoc', has: true },
    { search: 'token=abc', has: true },
    { search: '?src=edoc', has: false },
    { search: '?token=&src=edoc', has: false },
    { search: '', has: false },
  ])('the link with $search: $has', ({ search, has }) => {
    expect(hasLinkToken(search)).toBe(has);
  });
});
