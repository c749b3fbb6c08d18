// Spec §7 "Form POST to the web single sign-on login URL", for the login and
// for the automatic login after a reset or an account creation: a real HTML
// form post, so the browser follows the SSO's redirect (303 to /my-account,
// or to /webseal.do?error=CODE) as a page navigation and keeps its session
// cookie.

import { maintenancePageBypass } from '@/lib/api/use-api';

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

/** Builds a hidden form with the fields and submits it to url. */
export function postToSso(url: string, login: SsoLogin, doc: Document = document): HTMLFormElement {
  const form = doc.createElement('form');
  form.method = 'post';
  form.action = ssoAction(url);
  form.hidden = true;
  for (const [name, value] of ssoFields(login)) {
    const input = doc.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  doc.body.append(form);
  form.submit();
  return form;
}
