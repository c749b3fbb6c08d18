import type { ReactNode } from 'react';
import { DateOfBirthField } from '@/components/form/date-of-birth-field';
import { EmailField } from '@/components/form/email-field';
import { DriverLicenceField, PhoneField, PolicyNumberField, PostalCodeField, policyFormat } from '@/components/form/masked-field';
import { FirstNameField, LastNameField } from '@/components/form/text-field';
import type { Messages } from '@/i18n/catalog';
import { checkDateOfBirth } from '@/lib/rules/date-of-birth';
import { checkDriverLicence } from '@/lib/rules/driver-licence';
import { checkEmail } from '@/lib/rules/email';
import { checkFirstName, checkLastName } from '@/lib/rules/names';
import { checkPhone } from '@/lib/rules/phone';
import { checkPolicyNumber, type PolicyFormat } from '@/lib/rules/policy-number';
import { checkPostalCode } from '@/lib/rules/postal-code';
import { pass, type RuleResult } from '@/lib/rules/result';
import type { PublicBrand } from '@/lib/site/types';
import type { StepField } from './api';
import type { FieldName } from './field-names';

// The identification step's form (spec §2.5), built from the server's field
// list: each field of the catalogue the server validates and matches
// (internal/smartreg) with its shared form component and its rule of spec §5
// (lib/rules). The server's mask and lengths win for the policy number (the
// brand's rule); the label is the server's labelKey when the catalogue has it.

export { FIELD_NAMES, isFieldName, type FieldName } from './field-names';

export interface FieldContext {
  brand: PublicBrand;
  /** The visitor's province: the driver licence's province. */
  province: string;
  today: Date;
}

/**
 * The policy number's format: the server's (the brand's rule; minLength
 * counts the letters and digits, maxLength the mask's separators too), else
 * the brand's for the province.
 */
export function fieldPolicyFormat(field: StepField, ctx: FieldContext): PolicyFormat {
  const brand = policyFormat(ctx.brand.policyNumber, ctx.province);
  const length = field.rules.minLength ?? brand.length;
  return { length, mask: field.mask || (length === brand.length ? brand.mask : '') };
}

function rule(field: StepField & { name: FieldName }, ctx: FieldContext): (input: string) => RuleResult {
  switch (field.name) {
    case 'policyNumber': {
      const format = fieldPolicyFormat(field, ctx);
      return (input) => checkPolicyNumber(input, format);
    }
    case 'firstName':
      return checkFirstName;
    case 'lastName':
      return checkLastName;
    case 'dateOfBirth':
      return (input) => checkDateOfBirth(input, ctx.today);
    case 'postalCode':
      return checkPostalCode;
    case 'driverLicence':
      return (input) => checkDriverLicence(input, ctx.province, true);
    case 'email':
      return checkEmail;
    case 'phone':
      return (input) => checkPhone(input, field.required);
  }
}

/** A field's rule; an optional field left empty passes as ''. */
export function fieldSpec(field: StepField & { name: FieldName }, ctx: FieldContext): { rule: (input: string) => RuleResult } {
  const check = rule(field, ctx);
  return { rule: (input: string) => (!field.required && input.trim() === '' ? pass('') : check(input)) };
}

/** The server's label key when the catalogue (with the section) has it, else the component's own label. */
export function fieldLabel(field: StepField, messages: Partial<Messages>): string | undefined {
  return field.labelKey && Object.hasOwn(messages, field.labelKey) ? messages[field.labelKey as keyof Messages] : undefined;
}

/** The control of a field; an optional one says so in its hint. */
export function FieldControl({ field, label, optional, ctx }: { field: StepField & { name: FieldName }; label: string | undefined; optional: string; ctx: FieldContext }): ReactNode {
  const props = { name: field.name, ...(label ? { label } : {}), ...(field.required ? {} : { hint: optional }) };
  switch (field.name) {
    case 'policyNumber':
      return <PolicyNumberField {...props} format={fieldPolicyFormat(field, ctx)} />;
    case 'firstName':
      return <FirstNameField {...props} />;
    case 'lastName':
      return <LastNameField {...props} />;
    case 'dateOfBirth':
      return <DateOfBirthField name={field.name} {...(label ? { legend: label } : {})} />;
    case 'postalCode':
      return <PostalCodeField {...props} />;
    case 'driverLicence':
      return <DriverLicenceField {...props} province={ctx.province} />;
    case 'email':
      return <EmailField {...props} autoComplete="email" />;
    case 'phone':
      return <PhoneField {...props} />;
  }
}
