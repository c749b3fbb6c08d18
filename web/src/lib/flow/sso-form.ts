// Spec §7 "Form POST to the web single sign-on login URL", for the login and
// for the automatic login after a reset or an account creation: a real HTML
// form post, so the browser follows the SSO's redirect (303 to /my-account,
// or to /webseal.do?error=CODE) as a page navigation and keeps its session
// cookie.

import { maintenancePageBypass } from '@/lib/api/use-api';
import { PRIVATE_ATTRIBUTE, type PrivateKind } from '@/lib/cobrowse/privacy';

export interface SsoLogin {
  username: string;
  password: string;
  /**
   * The authentication call's loginTicket (Guichet's SSO redeems it instead
   * of checking the password again); absent after a reset.
   */
  ticket?: string;
}

/** The fields of the post, in order. */
export function ssoFields(login: SsoLogin): [string, string][] {
  const fields: [string, string][] = [
    ['login-form-type', 'pwd'],
    ['username', login.username],
    ['password', login.password],
  ];
  if (login.ticket !== undefined) fields.push(['ticket', login.ticket]);
  return fields;
}

/**
 * Where the form goes: a post to Guichet's own SSO (a path on this site)
 * carries staff's maintenancePageBypass as the API calls do, since the
 * server keeps the form post out during maintenance too; an external SSO
 * never sees it.
 */
export function ssoAction(url: string, bypass: string | null = maintenancePageBypass()): string {
  if (!bypass || !url.startsWith('/') || url.startsWith('//')) return url;
  return `${url}${url.includes('?') ? '&' : '?'}maintenancePageBypass=${encodeURIComponent(bypass)}`;
}

/**
 * Submits the fields to url as a real form post. The form in the page holds
 * no field (issue 26): the fields join the post in its formdata event, at
 * submit time, so no element of the document ever carries the password or
 * the ticket, and a co-browse recording (or anything else that reads the
 * DOM) cannot see them. The form is marked private too: its action (staff's
 * maintenance bypass) is never recorded either.
 */
export function postToSso(url: string, login: SsoLogin, doc: Document = document): HTMLFormElement {
  const form = doc.createElement('form');
  form.method = 'post';
  form.hidden = true;
  form.setAttribute(PRIVATE_ATTRIBUTE, 'signInTicket' satisfies PrivateKind);
  form.action = ssoAction(url);
  const fields = ssoFields(login);
  form.addEventListener('formdata', (event) => {
    for (const [name, value] of fields) event.formData.append(name, value);
  });
  doc.body.append(form);
  form.submit();
  return form;
}

/**
 * Runs `forget` once this document goes, when the form post's answer (the
 * SSO's redirect) replaces it: pagehide. A flow's state must outlive the
 * post: cleared before it, the page's guard sent the visitor to / while the
 * server was still signing them in, and the login page flashed (its footer
 * moving) before /my-account (issue 32).
 */
export function forgetOnLeaving(forget: () => void, win: Window = window): void {
  win.addEventListener('pagehide', () => forget(), { once: true });
}
