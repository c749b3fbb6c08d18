// Spec §7 "Form POST to the web single sign-on login URL", used after a
// reset for the automatic login: a real HTML form post (login-form-type=pwd,
// username, password), so the browser follows the SSO's redirect to the
// account page as a page navigation and keeps its session cookie.

/** The fields of the post, in order. */
export function ssoFields(username: string, password: string): [string, string][] {
  return [
    ['login-form-type', 'pwd'],
    ['username', username],
    ['password', password],
  ];
}

/** Builds a hidden form with the fields and submits it to url. */
export function signInThroughSso(url: string, username: string, password: string, doc: Document = document): HTMLFormElement {
  const form = doc.createElement('form');
  form.method = 'post';
  form.action = url;
  form.hidden = true;
  for (const [name, value] of ssoFields(username, password)) {
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
