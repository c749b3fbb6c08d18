import { afterEach, beforeEach, vi } from 'vitest';

/**
 * The hooks of a flow's page tests, for the file or suite that calls it.
 * Before each test HTMLFormElement.submit is spied on (jsdom does not
 * navigate; the SSO hand-off posts a form); after it, real timers, no
 * stubbed globals or mocks, an empty sessionStorage and the posted forms
 * removed. Returns the forms submitted in the current test.
 */
export function submittedForms(): HTMLFormElement[] {
  const submitted: HTMLFormElement[] = [];
  beforeEach(() => {
    submitted.length = 0;
    vi.spyOn(HTMLFormElement.prototype, 'submit').mockImplementation(function (this: HTMLFormElement) {
      submitted.push(this);
    });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    sessionStorage.clear();
    document.querySelectorAll('body > form').forEach((form) => form.remove());
  });
  return submitted;
}
