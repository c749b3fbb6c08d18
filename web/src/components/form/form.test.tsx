import { act, fireEvent, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { loadMessages } from '@/i18n/catalog';
import { I18nProvider } from '@/i18n/i18n';
import { checkDateOfBirth } from '@/lib/rules/date-of-birth';
import { checkDriverLicence } from '@/lib/rules/driver-licence';
import { checkEmail } from '@/lib/rules/email';
import { checkEmailConfirmation } from '@/lib/rules/email-confirmation';
import { checkLoginPassword } from '@/lib/rules/login-password';
import { checkPhone } from '@/lib/rules/phone';
import { checkPolicyNumber } from '@/lib/rules/policy-number';
import { checkPostalCode } from '@/lib/rules/postal-code';
import { checkSecurityCode } from '@/lib/rules/security-code';
import { checkTerms } from '@/lib/rules/terms';
import { SiteProvider } from '@/lib/site/site-context';
import type { Language, PublicBrand } from '@/lib/site/types';
import { belair, siteConfig } from '@/test/site-fixture';
import { assembleDate, DateOfBirthField, monthNames, splitDate } from './date-of-birth-field';
import { CheckboxField } from './checkbox-field';
import { EmailField } from './email-field';
import { Form, SubmitButton } from './form';
import { LicenceProvinceField } from './licence-province-field';
import { DriverLicenceField, PhoneField, PinField, PolicyNumberField, PostalCodeField, SecurityCodeField } from './masked-field';
import { PasswordField } from './password-field';
import { TermsField } from './terms-field';
import { FirstNameField } from './text-field';
import { useForm, type FormState } from './use-form';

async function renderInSite(ui: ReactNode, { language = 'en', brand = belair }: { language?: Language; brand?: PublicBrand } = {}) {
  const config = siteConfig({ brand, language, province: brand.defaultProvince });
  await loadMessages(brand.id, language);
  return render(
    <SiteProvider config={config}>
      <I18nProvider brand={brand.id} language={language}>
        {ui}
      </I18nProvider>
    </SiteProvider>,
  );
}

const setNativeValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;

/** What the browser does on an edit: the new value, the caret, then an input event. */
function edit(input: HTMLInputElement, value: string, caret = value.length, inputType = 'insertText') {
  act(() => {
    input.focus();
    setNativeValue?.call(input, value);
    input.setSelectionRange(caret, caret);
    input.dispatchEvent(new InputEvent('input', { bubbles: true, inputType }));
  });
}

/** Types text one character at a time at the caret. */
function typeInto(input: HTMLInputElement, text: string) {
  for (const ch of text) {
    const start = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? start;
    edit(input, input.value.slice(0, start) + ch + input.value.slice(end), start + 1);
  }
}

function paste(input: HTMLInputElement, text: string) {
  act(() => {
    input.focus();
    fireEvent.paste(input, { clipboardData: { getData: () => text } });
  });
}

const textbox = (name: string | RegExp) => screen.getByRole('textbox', { name }) as HTMLInputElement;

/** Each field of a label, given a text by enter (typed, pasted), shows the value. */
function expectShown(enter: (input: HTMLInputElement, text: string) => void, cases: [label: string, text: string, shown: string][]) {
  for (const [label, text, shown] of cases) {
    const field = textbox(label);
    enter(field, text);
    expect(field.value).toBe(shown);
  }
}

function MaskedForm() {
  const form = useForm({
    phone: { rule: (input: string) => checkPhone(input, true) },
    postalCode: { rule: checkPostalCode },
    policyNumber: { rule: (input: string) => checkPolicyNumber(input, { length: 7, mask: 'XXX-XXXX' }) },
    licenceProvince: { initial: 'qc' },
    driverLicence: { rule: (input: string, province: string) => checkDriverLicence(input, province, true), with: 'licenceProvince' },
    code: { rule: checkSecurityCode },
    pin: {},
  });
  return (
    <Form form={form} onSubmit={() => undefined}>
      <PhoneField name="phone" />
      <PostalCodeField name="postalCode" />
      <PolicyNumberField name="policyNumber" format={{ length: 7, mask: 'XXX-XXXX' }} />
      <LicenceProvinceField name="licenceProvince" />
      <DriverLicenceField name="driverLicence" province={form.inputs.licenceProvince} />
      <SecurityCodeField name="code" />
      <PinField name="pin" />
    </Form>
  );
}

// The masks of config/brands/*.yaml.
const licenceMasks = { qc: 'A9999-999999-99', on: 'A9999-99999-99999', ab: '**9999-999', bc: '9999999' };

describe('masked fields', () => {
  it('format and upper-case as the visitor types', async () => {
    await renderInSite(<MaskedForm />);
    expectShown(typeInto, [
      ['Phone number', '514555a0123', '514-555-0123'],
      ['Postal code', 'h2x1y4', 'H2X 1Y4'],
      ['Policy number', 'abc12345', 'ABC-1234'],
      ['PIN', 'ab-12cd34zz', 'AB12CD34'],
    ]);
  });

  it('keep the caret after a character typed in the middle', async () => {
    await renderInSite(<MaskedForm />);
    const phone = textbox('Phone number');
    typeInto(phone, '514555012');
    act(() => phone.setSelectionRange(4, 4));
    typeInto(phone, '9');
    expect(phone.value).toBe('514-955-5012');
    expect(phone.selectionStart).toBe(5);
    typeInto(phone, 'x');
    expect(phone.value).toBe('514-955-5012');
    expect(phone.selectionStart).toBe(5);
  });

  it('take a paste with or without separators, and a country code', async () => {
    await renderInSite(<MaskedForm />);
    expectShown(paste, [
      ['Phone number', '+1 (514) 555-0123', '514-555-0123'],
      ['Postal code', 'h2x-1y4', 'H2X 1Y4'],
      ['Security code', '123 456', '123456'],
    ]);
    // fill() of a bare value (one input event with the whole value)
    const licence = textbox(/Driver’s licence number/);
    edit(licence, 'a123412345612');
    expect(licence.value).toBe('A1234-123456-12');
  });

  it('delete the character beyond a separator that is deleted alone', async () => {
    await renderInSite(<MaskedForm />);
    const phone = textbox('Phone number');
    edit(phone, '5145550123');
    expect(phone.value).toBe('514-555-0123');
    // Backspace after the first dash: the browser removes "-", the field removes "4" too.
    edit(phone, '514555-0123', 3, 'deleteContentBackward');
    expect(phone.value).toBe('515-550-123');
    expect(phone.selectionStart).toBe(2);
    // Delete before the dash: "5" after it goes.
    edit(phone, '515550-123', 3, 'deleteContentForward');
    expect(phone.value).toBe('515-501-23');
    expect(phone.selectionStart).toBe(4);
    // An ordinary backspace of a digit.
    edit(phone, '515-501-2', 9, 'deleteContentBackward');
    expect(phone.value).toBe('515-501-2');
  });

  it('re-mask the licence when its province changes', async () => {
    await renderInSite(<MaskedForm />, { brand: { ...belair, driverLicenceMasks: licenceMasks } });
    const licence = textbox(/Driver’s licence number/);
    edit(licence, 'a123412345612');
    expect(licence.value).toBe('A1234-123456-12');
    const province = screen.getByRole('combobox', { name: 'Province that issued your driver’s licence' });
    act(() => fireEvent.change(province, { target: { value: 'ab' } }));
    // ab: **9999-999 takes the first 9 letters or digits.
    expect(licence.value).toBe('A12341-234');
    act(() => fireEvent.change(province, { target: { value: 'other' } }));
    expect(licence.value).toBe('A12341234');
  });

  it('lists the brand provinces with a licence rule, then Other', async () => {
    const brand: PublicBrand = {
      ...belair,
      provinces: belair.provinces.map((p) => (p.key === 'ab' ? { ...p, license: false } : p)),
    };
    await renderInSite(<MaskedForm />, { brand });
    const province = screen.getByRole('combobox', { name: 'Province that issued your driver’s licence' });
    expect(within(province).getAllByRole('option').map((o) => o.textContent)).toEqual(['Select', 'Quebec', 'Ontario', 'Other']);
  });

  it('give each control its autocomplete and keypad', async () => {
    await renderInSite(<MaskedForm />);
    const attrs = (name: string | RegExp) => {
      const el = textbox(name);
      return [el.type, el.getAttribute('autocomplete'), el.getAttribute('inputmode'), el.getAttribute('maxlength')];
    };
    expect(attrs('Phone number')).toEqual(['tel', 'tel-national', 'tel', null]);
    expect(attrs('Postal code')).toEqual(['text', 'postal-code', null, null]);
    expect(attrs('Security code')).toEqual(['text', 'one-time-code', 'numeric', '6']);
    expect(attrs('PIN')).toEqual(['text', 'one-time-code', null, null]);
    // Co-browse (issue 18) blocks data-private fields outright: their values never leave the browser.
    for (const name of ['Phone number', 'Postal code', /Policy number/, 'Driver’s licence number', 'Security code', 'PIN']) {
      expect(textbox(name).hasAttribute('data-private'), String(name)).toBe(true);
    }
    expect(textbox('Phone number').getAttribute('aria-describedby')).toBe(`${textbox('Phone number').id}-hint`);
  });
});

describe('date of birth', () => {
  it.each([
    [{ day: '', month: '', year: '' }, ''],
    [{ day: '5', month: '03', year: '1980' }, '1980-03-05'],
    [{ day: '29', month: '02', year: '2004' }, '2004-02-29'],
    [{ day: '12', month: '', year: '1980' }, '1980--12'],
    [{ day: '', month: '', year: '19' }, '19--'],
  ])('%j assembles to %j', (parts, value) => {
    expect(assembleDate(parts)).toBe(value);
  });

  it.each([
    ['1980-03-05', { day: '05', month: '03', year: '1980' }],
    ['', { day: '', month: '', year: '' }],
    ['nonsense', { day: '', month: '', year: '' }],
  ])('%j splits back', (value, parts) => {
    expect(splitDate(value)).toEqual(parts);
  });

  it('names the months in the page language', () => {
    expect(monthNames('en')[0]).toBe('January');
    expect(monthNames('fr')[7]).toBe('août');
  });

  it('sends YYYY-MM-DD from day, month and year in a fieldset', async () => {
    const onSubmit = vi.fn();
    function DateForm() {
      const form = useForm({ birthDate: { rule: (input: string) => checkDateOfBirth(input, new Date(2025, 5, 1)) } });
      return (
        <Form form={form} onSubmit={onSubmit}>
          <DateOfBirthField name="birthDate" />
          <SubmitButton>Send</SubmitButton>
        </Form>
      );
    }
    await renderInSite(<DateForm />);
    const group = screen.getByRole('group', { name: 'Date of birth' });
    const day = within(group).getByRole('textbox', { name: 'Day' }) as HTMLInputElement;
    const month = within(group).getByRole('combobox', { name: 'Month' });
    const year = within(group).getByRole('textbox', { name: 'Year' }) as HTMLInputElement;
    expect([day.autocomplete, month.getAttribute('autocomplete'), year.autocomplete]).toEqual(['bday-day', 'bday-month', 'bday-year']);
    expect(within(month).getAllByRole('option')).toHaveLength(13);
    typeInto(day, '7x');
    expect(day.value).toBe('7');
    act(() => fireEvent.change(month, { target: { value: '09' } }));
    typeInto(year, '1980');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Send' })));
    expect(onSubmit).toHaveBeenCalledWith({ birthDate: '1980-09-07' });
  });

  it('describes the group with its message and marks each part invalid', async () => {
    function DateForm() {
      const form = useForm({ birthDate: { rule: (input: string) => checkDateOfBirth(input, new Date(2025, 5, 1)), initial: '2020-02-30' } });
      return (
        <Form form={form} onSubmit={() => undefined}>
          <DateOfBirthField name="birthDate" />
          <SubmitButton>Send</SubmitButton>
        </Form>
      );
    }
    await renderInSite(<DateForm />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Send' })));
    const group = screen.getByRole('group', { name: 'Date of birth' });
    const describedBy = group.getAttribute('aria-describedby') ?? '';
    expect(document.getElementById(describedBy)?.textContent).toBe('Error: Enter a valid date of birth: day, month and 4-digit year.');
    for (const control of [...group.querySelectorAll('input, select')]) expect(control.getAttribute('aria-invalid')).toBe('true');
    // The summary's link leads to the day.
    const link = screen.getByRole('link', { name: 'Enter a valid date of birth: day, month and 4-digit year.' });
    act(() => fireEvent.click(link));
    expect(document.activeElement).toBe(within(group).getByRole('textbox', { name: 'Day' }));
  });
});

interface LoginProps {
  onSubmit: (values: { email: string; password: string }) => void | Promise<void>;
  expose?: (form: FormState<{ email: { rule: typeof checkEmail }; password: { rule: typeof checkLoginPassword } }>) => void;
}

/** A screen as the login page declares it. */
function LoginForm({ onSubmit, expose }: LoginProps) {
  const form = useForm({ email: { rule: checkEmail }, password: { rule: checkLoginPassword } });
  expose?.(form);
  return (
    <Form form={form} onSubmit={onSubmit}>
      <EmailField name="email" autoComplete="username" />
      <PasswordField name="password" autoComplete="current-password" />
      <SubmitButton>Sign in</SubmitButton>
    </Form>
  );
}

const signIn = () => screen.getByRole('button', { name: 'Sign in' });

describe('Form', () => {
  it('passes the rules’ normalized values to onSubmit', async () => {
    const onSubmit = vi.fn();
    await renderInSite(<LoginForm onSubmit={onSubmit} />);
    act(() => fireEvent.change(textbox('Email address'), { target: { value: '  Jean@Example.com ' } }));
    act(() => fireEvent.change(screen.getByLabelText('Password'), { target: { value: '  Green  Lamp42 ' } }));
    await act(async () => fireEvent.click(signIn()));
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ email: 'Jean@Example.com', password: 'Green Lamp42 ' });
    expect(screen.queryByRole('alert', { name: /correct/ })).toBeNull();
  });

  it('moves the focus to an error summary linking each invalid field, and marks the fields', async () => {
    const onSubmit = vi.fn();
    await renderInSite(<LoginForm onSubmit={onSubmit} />);
    await act(async () => fireEvent.click(signIn()));
    expect(onSubmit).not.toHaveBeenCalled();
    const summary = screen.getByRole('alert', { name: 'Please correct the following errors' });
    expect(document.activeElement).toBe(summary);
    const links = within(summary).getAllByRole('link');
    expect(links.map((a) => a.textContent)).toEqual(['Enter your email address.', 'Enter your password.']);
    const email = textbox('Email address');
    const password = screen.getByLabelText('Password');
    expect(links.map((a) => a.getAttribute('href'))).toEqual([`#${email.id}`, `#${password.id}`]);
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById(email.getAttribute('aria-describedby') ?? '')?.textContent).toBe('Error: Enter your email address.');
    expect(password.getAttribute('aria-invalid')).toBe('true');
    act(() => fireEvent.click(links[1]!));
    expect(document.activeElement).toBe(password);
  });

  it('takes the focus back from <body> after the answer: on the server message, else on the button (issue 32)', async () => {
    let form: Parameters<NonNullable<LoginProps['expose']>>[0] | undefined;
    let message = true;
    const onSubmit = () => {
      (document.activeElement as HTMLElement | null)?.blur(); // as a browser does when the focused button is disabled
      if (message) form?.setFormError('login.error');
    };
    await renderInSite(<LoginForm onSubmit={onSubmit} expose={(f) => (form = f)} />);
    act(() => fireEvent.change(textbox('Email address'), { target: { value: 'jean@example.com' } }));
    act(() => fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'Green Lamp42' } }));
    signIn().focus();
    await act(async () => fireEvent.submit(signIn()));
    expect(document.activeElement?.className).toBe('form-alert');
    message = false;
    signIn().focus();
    await act(async () => fireEvent.submit(signIn()));
    expect(document.activeElement).toBe(signIn());
  });

  it('checks a field on blur only once the form was submitted', async () => {
    await renderInSite(<LoginForm onSubmit={() => undefined} />);
    const email = textbox('Email address');
    act(() => fireEvent.change(email, { target: { value: 'jean@' } }));
    act(() => fireEvent.blur(email));
    expect(email.getAttribute('aria-invalid')).toBeNull();
    await act(async () => fireEvent.click(signIn()));
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getAllByText('Enter a valid email address, for example name@example.com.')).toHaveLength(2);
    act(() => fireEvent.change(email, { target: { value: 'jean@example.com' } }));
    act(() => fireEvent.blur(email));
    expect(email.getAttribute('aria-invalid')).toBeNull();
    expect(email.getAttribute('aria-describedby')).toBeNull();
  });

  // Issue 12: a blur must not move the submit button from under the pointer.
  it('keeps the error summary of the last submit when a blur fixes a field; the next submit rebuilds it', async () => {
    await renderInSite(<LoginForm onSubmit={() => undefined} />);
    await act(async () => fireEvent.click(signIn()));
    const summary = screen.getByRole('alert', { name: 'Please correct the following errors' });
    const links = () => within(summary).getAllByRole('link').map((a) => a.textContent);
    expect(links()).toEqual(['Enter your email address.', 'Enter your password.']);
    const email = textbox('Email address');
    act(() => fireEvent.change(email, { target: { value: 'jean@example.com' } }));
    act(() => fireEvent.blur(email));
    // The field's own message goes; the summary stays as the submit left it.
    expect(email.getAttribute('aria-invalid')).toBeNull();
    expect(screen.getByRole('alert', { name: 'Please correct the following errors' })).toBe(summary);
    expect(links()).toEqual(['Enter your email address.', 'Enter your password.']);
    // A blur that finds a new error shows it by the field only.
    act(() => fireEvent.change(email, { target: { value: 'jean@' } }));
    act(() => fireEvent.blur(email));
    expect(email.getAttribute('aria-invalid')).toBe('true');
    expect(links()).toEqual(['Enter your email address.', 'Enter your password.']);
    await act(async () => fireEvent.click(signIn()));
    expect(document.activeElement).toBe(screen.getByRole('alert', { name: 'Please correct the following errors' }));
    expect(within(screen.getByRole('alert', { name: 'Please correct the following errors' })).getAllByRole('link').map((a) => a.textContent)).toEqual([
      'Enter a valid email address, for example name@example.com.',
      'Enter your password.',
    ]);
  });

  it('checks a field blurred by a press (mouse or tap) only after that press’s click, so the click lands where it was aimed', async () => {
    const onSubmit = vi.fn();
    let form: Parameters<NonNullable<LoginProps['expose']>>[0] | undefined;
    await renderInSite(<LoginForm onSubmit={onSubmit} expose={(f) => (form = f)} />);
    await act(async () => fireEvent.click(signIn()));
    const email = textbox('Email address');
    const password = screen.getByLabelText('Password');
    act(() => fireEvent.change(email, { target: { value: 'jean@example.com' } }));
    act(() => fireEvent.blur(email));
    act(() => fireEvent.change(password, { target: { value: 'Green Lamp42' } }));
    // The press on Sign in blurs the password: until its click, nothing changes.
    act(() => {
      fireEvent.mouseDown(signIn());
      fireEvent.blur(password);
    });
    expect(password.getAttribute('aria-invalid')).toBe('true');
    act(() => {
      fireEvent.mouseUp(signIn());
      expect(password.getAttribute('aria-invalid')).toBe('true');
      fireEvent.click(signIn());
      // A server message for the field, before the check put off by the press had run.
      form?.setError('password', 'login.error');
    });
    expect(onSubmit).toHaveBeenCalledExactlyOnceWith({ email: 'jean@example.com', password: 'Green Lamp42' });
    // The submit checked every field: the check put off is dropped and does not undo the server's message.
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(password.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByText('The email or password is incorrect. Please try again.', { selector: '.field__error' })).toBeTruthy();

    // A press elsewhere: the blurred field is checked once the press is over.
    act(() => fireEvent.change(email, { target: { value: 'jean@' } }));
    act(() => {
      fireEvent.mouseDown(document.body);
      fireEvent.blur(email);
    });
    expect(email.getAttribute('aria-invalid')).toBeNull();
    act(() => fireEvent.mouseUp(document.body));
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(email.getAttribute('aria-invalid')).toBe('true');

    // A press whose mouseup never came (a menu took it): the next key ends the wait.
    act(() => fireEvent.change(email, { target: { value: 'jean@example.com' } }));
    act(() => {
      fireEvent.mouseDown(document.body);
      fireEvent.blur(email);
    });
    act(() => fireEvent.keyDown(document.body, { key: 'Tab' }));
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(email.getAttribute('aria-invalid')).toBeNull();
    // The other buttons do not hold a check back.
    act(() => fireEvent.change(email, { target: { value: 'jean@' } }));
    act(() => {
      fireEvent.mouseDown(document.body, { button: 2 });
      fireEvent.blur(email);
    });
    expect(email.getAttribute('aria-invalid')).toBe('true');
    act(() => fireEvent.mouseUp(document.body, { button: 2 }));
  });

  it('restarts: no messages, and blur checks nothing until the next submit', async () => {
    let form: Parameters<NonNullable<LoginProps['expose']>>[0] | undefined;
    await renderInSite(<LoginForm onSubmit={() => undefined} expose={(f) => (form = f)} />);
    await act(async () => fireEvent.click(signIn()));
    const email = textbox('Email address');
    act(() => fireEvent.change(email, { target: { value: 'jean@example.com' } }));
    act(() => form?.restart({ email: '' }));
    expect(email.value).toBe('');
    expect(screen.queryByRole('alert', { name: 'Please correct the following errors' })).toBeNull();
    expect(email.getAttribute('aria-invalid')).toBeNull();
    act(() => fireEvent.blur(email));
    expect(email.getAttribute('aria-invalid')).toBeNull();
    await act(async () => fireEvent.click(signIn()));
    expect(email.getAttribute('aria-invalid')).toBe('true');
  });

  it('shows the messages in French', async () => {
    await renderInSite(<LoginForm onSubmit={() => undefined} />, { language: 'fr' });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Sign in' })));
    const summary = screen.getByRole('alert', { name: 'Veuillez corriger les erreurs suivantes' });
    expect(within(summary).getAllByRole('link').map((a) => a.textContent)).toEqual([
      'Entrez votre adresse courriel.',
      'Entrez votre mot de passe.',
    ]);
    const email = screen.getByRole('textbox', { name: 'Adresse courriel' });
    expect(document.getElementById(email.getAttribute('aria-describedby') ?? '')?.textContent).toBe(
      'Erreur\u00a0: Entrez votre adresse courriel.',
    );
  });

  it('is busy while onSubmit runs (once), then shows server errors per field and for the form', async () => {
    let finish = () => {};
    let form: Parameters<NonNullable<LoginProps['expose']>>[0] | undefined;
    let submits = 0;
    const onSubmit = () =>
      new Promise<void>((resolve) => {
        submits++;
        finish = resolve;
      });
    await renderInSite(<LoginForm onSubmit={onSubmit} expose={(f) => (form = f)} />);
    act(() => fireEvent.change(textbox('Email address'), { target: { value: 'jean@example.com' } }));
    act(() => fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'x' } }));
    // Enter pressed twice: one submit.
    await act(async () => {
      fireEvent.submit(signIn().closest('form')!);
      fireEvent.submit(signIn().closest('form')!);
    });
    expect(submits).toBe(1);
    expect(signIn()).toHaveProperty('disabled', true);
    expect(signIn().getAttribute('aria-busy')).toBe('true');
    await act(async () => {
      form?.setError('email', 'errorEmailRequired');
      form?.setFormError('errorPasswordRequired');
      finish();
    });
    expect(signIn()).toHaveProperty('disabled', false);
    expect(signIn().getAttribute('aria-busy')).toBeNull();
    const alerts = screen.getAllByRole('alert');
    expect(alerts.map((a) => a.textContent)).toContain('Enter your password.');
    expect(textbox('Email address').getAttribute('aria-invalid')).toBe('true');
  });

  it.each([
    { language: 'en' as const, show: 'Show password', hide: 'Hide password' },
    { language: 'fr' as const, show: 'Afficher le mot de passe', hide: 'Masquer le mot de passe' },
  ])('lets a password be shown and hidden, the toggle saying what it does ($language)', async ({ language, show, hide }) => {
    await renderInSite(<LoginForm onSubmit={() => undefined} />, { language });
    const password = screen.getByLabelText(language === 'en' ? 'Password' : 'Mot de passe') as HTMLInputElement;
    const toggle = screen.getByRole('button', { name: show });
    expect([password.type, password.autocomplete]).toEqual(['password', 'current-password']);
    // The name changes, so no pressed state contradicts it.
    expect(toggle.hasAttribute('aria-pressed')).toBe(false);
    act(() => fireEvent.click(toggle));
    expect(password.type).toBe('text');
    expect(toggle.textContent).toBe(hide);
    expect(screen.getByRole('button', { name: hide })).toBe(toggle);
    expect(screen.queryByRole('button', { name: show })).toBeNull();
    expect(toggle.getAttribute('aria-controls')).toBe(password.id);
    act(() => fireEvent.click(toggle));
    expect(password.type).toBe('password');
    expect(toggle.textContent).toBe(show);
    expect(textbox(language === 'en' ? 'Email address' : 'Adresse courriel').autocomplete).toBe('username');
  });

  it('gives a retype rule the other field and a checkbox its own rule', async () => {
    const onSubmit = vi.fn();
    function SignUp() {
      const form = useForm({
        email: { rule: checkEmail },
        emailConfirmation: { rule: checkEmailConfirmation, with: 'email' },
        firstName: {},
        terms: { rule: checkTerms, initial: false },
      });
      return (
        <Form form={form} onSubmit={onSubmit}>
          <EmailField name="email" autoComplete="email" />
          <EmailField name="emailConfirmation" autoComplete="email" label="Confirm email" />
          <FirstNameField name="firstName" />
          <TermsField name="terms" />
          <SubmitButton>Create</SubmitButton>
        </Form>
      );
    }
    await renderInSite(<SignUp />);
    act(() => fireEvent.change(textbox('Email address'), { target: { value: 'jean@example.com' } }));
    act(() => fireEvent.change(textbox('Confirm email'), { target: { value: 'JEAN@example.org' } }));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Create' })));
    const summary = screen.getByRole('alert', { name: 'Please correct the following errors' });
    expect(within(summary).getAllByRole('link').map((a) => a.textContent)).toEqual([
      'The email addresses do not match.',
      'You must agree to the Terms of Use to sign up.',
    ]);
    const terms = screen.getByRole('checkbox', { name: /I have read and accept the Terms of Use/ });
    expect(screen.getByRole('link', { name: /^Terms of Use ?\(opens in a new tab\)$/ }).getAttribute('href')).toBe(belair.links.terms.en);
    expect(textbox('First name').autocomplete).toBe('given-name');
    act(() => fireEvent.click(terms));
    expect(terms.getAttribute('aria-invalid')).toBeNull();
    act(() => fireEvent.change(textbox('Confirm email'), { target: { value: 'JEAN@example.com' } }));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Create' })));
    expect(onSubmit).toHaveBeenCalledWith({ email: 'jean@example.com', emailConfirmation: 'JEAN@example.com', firstName: '', terms: true });
  });

  it('refuses a field that useForm does not declare', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    function Broken() {
      const form = useForm({ email: { rule: checkEmail } });
      return (
        <Form form={form} onSubmit={() => undefined}>
          <PhoneField name="phone" />
        </Form>
      );
    }
    await expect(renderInSite(<Broken />)).rejects.toThrow('field "phone" is not declared in useForm');
  });
});

describe('CheckboxField', () => {
  it('holds a boolean and tells the screen of each change', async () => {
    const onChange = vi.fn();
    const onSubmit = vi.fn();
    function Remember() {
      const form = useForm({ remember: { initial: true } });
      return (
        <Form form={form} onSubmit={onSubmit}>
          <CheckboxField name="remember" label="Remember me" onChange={onChange} />
          <SubmitButton>Send</SubmitButton>
        </Form>
      );
    }
    await renderInSite(<Remember />);
    const box = screen.getByRole('checkbox', { name: 'Remember me' });
    expect(box).toHaveProperty('checked', true);
    act(() => fireEvent.click(box));
    expect(onChange).toHaveBeenCalledWith(false);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Send' })));
    expect(onSubmit).toHaveBeenCalledWith({ remember: false });
  });
});
