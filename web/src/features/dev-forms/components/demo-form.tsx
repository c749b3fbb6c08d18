import { useEffect, useId, useState } from 'react';
import { DateOfBirthField } from '@/components/form/date-of-birth-field';
import { EmailField } from '@/components/form/email-field';
import { Form, SubmitButton } from '@/components/form/form';
import { LicenceProvinceField } from '@/components/form/licence-province-field';
import {
  DriverLicenceField,
  PhoneField,
  PinField,
  PolicyNumberField,
  policyFormat,
  PostalCodeField,
  SecurityCodeField,
} from '@/components/form/masked-field';
import { PasswordField } from '@/components/form/password-field';
import { TermsField } from '@/components/form/terms-field';
import { FirstNameField, LastNameField } from '@/components/form/text-field';
import { useForm, type FormValues } from '@/components/form/use-form';
import type { MessageKey } from '@/i18n/catalog';
import { useT, type Translate } from '@/i18n/i18n';
import { checkDateOfBirth } from '@/lib/rules/date-of-birth';
import { checkDriverLicence } from '@/lib/rules/driver-licence';
import { checkEmail } from '@/lib/rules/email';
import { checkEmailConfirmation } from '@/lib/rules/email-confirmation';
import { checkLoginPassword } from '@/lib/rules/login-password';
import { checkFirstName, checkLastName } from '@/lib/rules/names';
import { checkPassword } from '@/lib/rules/password';
import { checkPasswordConfirmation } from '@/lib/rules/password-confirmation';
import { checkPhone } from '@/lib/rules/phone';
import { checkPin } from '@/lib/rules/pin';
import { checkPolicyNumber } from '@/lib/rules/policy-number';
import { checkPostalCode } from '@/lib/rules/postal-code';
import { checkSecurityCode } from '@/lib/rules/security-code';
import { checkTerms } from '@/lib/rules/terms';
import { useSite } from '@/lib/site/site-context';

export type DemoState = 'empty' | 'filled' | 'error' | 'disabled';

const headings = {
  empty: 'devForms.empty',
  filled: 'devForms.filled',
  error: 'devForms.error',
  disabled: 'devForms.disabled',
} as const satisfies Record<DemoState, MessageKey>;

/** What each field starts with, by state. */
export interface DemoInputs {
  email: string;
  emailConfirmation: string;
  password: string;
  passwordConfirmation: string;
  loginPassword: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  phone: string;
  postalCode: string;
  policyNumber: string;
  licenceProvince: string;
  driverLicence: string;
  code: string;
  pin: string;
  terms: boolean;
}

const filled: DemoInputs = {
  email: 'marie.tremblay@example.com',
  emailConfirmation: 'Marie.Tremblay@example.com',
  password: 'Green#Lamp42',
  passwordConfirmation: 'Green#Lamp42',
  loginPassword: 'Green#Lamp42',
  firstName: 'Marie-Ève',
  lastName: 'O’Brien',
  dateOfBirth: '1980-05-17',
  phone: '5145550123',
  postalCode: 'h2x1y4',
  // Letters only: valid in every brand's format, whatever its slots.
  policyNumber: 'abcdefghi',
  licenceProvince: 'qc',
  driverLicence: 'a123412345612',
  code: '123456',
  pin: 'ab12cd34',
  terms: true,
};

export const demoInputs: Record<DemoState, DemoInputs> = {
  empty: {
    email: '',
    emailConfirmation: '',
    password: '',
    passwordConfirmation: '',
    loginPassword: '',
    firstName: '',
    lastName: '',
    dateOfBirth: '',
    phone: '',
    postalCode: '',
    policyNumber: '',
    licenceProvince: '',
    driverLicence: '',
    code: '',
    pin: '',
    terms: false,
  },
  filled,
  error: {
    email: 'marie.tremblay@',
    emailConfirmation: 'marie@example.com',
    password: 'short',
    passwordConfirmation: 'other',
    loginPassword: '',
    firstName: 'M',
    lastName: 'Tremblay3',
    dateOfBirth: '2020-02-30',
    phone: '514555',
    postalCode: 'H2X',
    policyNumber: 'ABC',
    licenceProvince: 'on',
    driverLicence: 'A1234',
    code: '123',
    pin: 'AB12',
    terms: false,
  },
  disabled: filled,
};

function useDemoForm(initial: DemoInputs) {
  const { brand, province } = useSite();
  const format = policyFormat(brand.policyNumber, province);
  return useForm({
    email: { rule: checkEmail, initial: initial.email },
    emailConfirmation: { rule: checkEmailConfirmation, with: 'email', initial: initial.emailConfirmation },
    password: { rule: checkPassword, with: 'email', initial: initial.password },
    passwordConfirmation: { rule: checkPasswordConfirmation, with: 'password', initial: initial.passwordConfirmation },
    loginPassword: { rule: checkLoginPassword, initial: initial.loginPassword },
    firstName: { rule: checkFirstName, initial: initial.firstName },
    lastName: { rule: checkLastName, initial: initial.lastName },
    dateOfBirth: { rule: (input: string) => checkDateOfBirth(input, new Date()), initial: initial.dateOfBirth },
    phone: { rule: (input: string) => checkPhone(input, true), initial: initial.phone },
    postalCode: { rule: checkPostalCode, initial: initial.postalCode },
    policyNumber: { rule: (input: string) => checkPolicyNumber(input, format), initial: initial.policyNumber },
    licenceProvince: { initial: initial.licenceProvince },
    driverLicence: {
      rule: (input: string, licenceProvince: string) => checkDriverLicence(input, licenceProvince, true),
      with: 'licenceProvince',
      initial: initial.driverLicence,
    },
    code: { rule: checkSecurityCode, initial: initial.code },
    pin: { rule: checkPin, initial: initial.pin },
    terms: { rule: checkTerms, initial: initial.terms },
  });
}

type DemoValues = FormValues<ReturnType<typeof useDemoForm>['specs']>;

function sentText(t: Translate, values: DemoValues): string {
  return `${t('devForms.sent')} ${JSON.stringify(values)}`;
}

/**
 * Every field of issue 3 in one form, starting in a state: empty, filled,
 * with errors shown (and a message for the whole form), or disabled.
 * Submitting shows the normalized values the form would send.
 */
export function DemoForm({ state }: { state: DemoState }) {
  const t = useT();
  const headingId = useId();
  const form = useDemoForm(demoInputs[state]);
  const [sent, setSent] = useState('');
  const disabled = state === 'disabled';
  const { validate, setFormError } = form;

  useEffect(() => {
    if (state !== 'error') return;
    validate();
    setFormError('devForms.serverError');
  }, [state, validate, setFormError]);

  return (
    <section className="dev-forms__state" aria-labelledby={headingId}>
      <h2 id={headingId}>{t(headings[state])}</h2>
      <Form
        form={form}
        aria-labelledby={headingId}
        onSubmit={async (values) => {
          // A pause as a server call takes, so the submitting state shows.
          await new Promise((resolve) => setTimeout(resolve, 300));
          setSent(sentText(t, values));
        }}
      >
        <EmailField name="email" autoComplete="email" disabled={disabled} />
        <EmailField name="emailConfirmation" autoComplete="email" label={t('devForms.emailConfirmation')} disabled={disabled} />
        <PasswordField name="password" autoComplete="new-password" label={t('devForms.newPassword')} hint={t('protectAccount.passwordInfo')} disabled={disabled} />
        <PasswordField
          name="passwordConfirmation"
          autoComplete="new-password"
          label={t('devForms.passwordConfirmation')}
          disabled={disabled}
        />
        <PasswordField name="loginPassword" autoComplete="current-password" disabled={disabled} />
        <FirstNameField name="firstName" disabled={disabled} />
        <LastNameField name="lastName" disabled={disabled} />
        <DateOfBirthField name="dateOfBirth" disabled={disabled} />
        <PhoneField name="phone" disabled={disabled} />
        <PostalCodeField name="postalCode" disabled={disabled} />
        <PolicyNumberField name="policyNumber" disabled={disabled} />
        <LicenceProvinceField name="licenceProvince" disabled={disabled} />
        <DriverLicenceField name="driverLicence" province={form.inputs.licenceProvince} disabled={disabled} />
        <SecurityCodeField name="code" disabled={disabled} />
        <PinField name="pin" disabled={disabled} />
        <TermsField name="terms" disabled={disabled} />
        <SubmitButton disabled={disabled}>{t('devForms.submit')}</SubmitButton>
      </Form>
      <p role="status" className="dev-forms__sent">
        {sent}
      </p>
    </section>
  );
}
