/**
 * The entries a browser posts for form: its fields, then what its formdata
 * listeners add (lib/flow/sso-form.ts puts the sign-in fields there, never in
 * the DOM). jsdom fires no formdata event, so this does, as a submit would.
 */
export function postedEntries(form: HTMLFormElement): [string, FormDataEntryValue][] {
  const formData = new FormData(form);
  form.dispatchEvent(Object.assign(new Event('formdata'), { formData }));
  return [...formData.entries()];
}

/**
 * The page goes, as the SSO's answer to the form post replaces it: the
 * pagehide that lib/flow/sso-form.ts's forgetOnLeaving waits for before a
 * flow's state is forgotten (issue 32).
 */
export function leavePage(): void {
  window.dispatchEvent(new PageTransitionEvent('pagehide'));
}
