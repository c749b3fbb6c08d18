import { expect, it, vi } from 'vitest';
import { postedEntries } from '@/test/sso-post';
import { forgetOnLeaving, postToSso, ssoAction } from './sso-form';

it("adds staff's maintenance bypass to a post to Guichet's own SSO only", () => {
  expect(ssoAction('/pkmslogin.form', null)).toBe('/pkmslogin.form');
  expect(ssoAction('/pkmslogin.form', 'staff s3cret&x')).toBe('/pkmslogin.form?maintenancePageBypass=staff%20s3cret%26x');
  expect(ssoAction('/pkmslogin.form?lang=fr', 'k')).toBe('/pkmslogin.form?lang=fr&maintenancePageBypass=k');
  // An external SSO (another origin) never receives the secret.
  expect(ssoAction('https://sso.example.com/pkmslogin.form', 'k')).toBe('https://sso.example.com/pkmslogin.form');
  expect(ssoAction('//sso.example.com/pkmslogin.form', 'k')).toBe('//sso.example.com/pkmslogin.form');
});

it('posts the fields without ever putting them in the document (issue 26)', () => {
  const submitted: [string, FormDataEntryValue][][] = [];
  // What a browser posts (the browser tests sign in through the real post).
  const submit = vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(function (this: HTMLFormElement) {
    submitted.push(postedEntries(this));
  });
  try {
    const form = postToSso('/pkmslogin.form', { username: 'a@example.com', password: 'Hunter2-Secret!', ticket: 'T1cket-XYZ' });
    expect(submit).toHaveBeenCalledOnce();
    expect(submitted[0]).toEqual([
      ['login-form-type', 'pwd'],
      ['username', 'a@example.com'],
      ['password', 'Hunter2-Secret!'],
      ['ticket', 'T1cket-XYZ'],
    ]);
    // Nothing of it in the DOM: no field, no value, and the form marked private.
    expect(form.elements).toHaveLength(0);
    expect(document.documentElement.outerHTML).not.toContain('Hunter2-Secret!');
    expect(document.documentElement.outerHTML).not.toContain('T1cket-XYZ');
    expect(form.getAttribute('data-private')).toBe('signInTicket');
    form.remove();
  } finally {
    submit.mockRestore();
  }
});

it('forgets a flow only when the page goes, not before the post (issue 32)', () => {
  const forget = vi.fn();
  forgetOnLeaving(forget);
  expect(forget).not.toHaveBeenCalled();
  window.dispatchEvent(new PageTransitionEvent('pagehide'));
  window.dispatchEvent(new PageTransitionEvent('pagehide'));
  expect(forget).toHaveBeenCalledOnce();
});
