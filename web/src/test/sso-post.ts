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
