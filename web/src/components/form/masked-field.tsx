import { useEffect, type ChangeEvent, type ClipboardEvent, type HTMLAttributes, type ReactNode } from 'react';
import { useT } from '@/i18n/i18n';
import type { PolicyFormat } from '@/lib/rules/policy-number';
import { lookup } from '@/lib/lookup';
import { privateMark, type PrivateKind } from '@/lib/cobrowse/privacy';
import { useSite } from '@/lib/site/site-context';
import { InputField, useField, type PresetFieldProps } from './form';
import { conform, freeMask, PHONE_MASK, phoneOptions, POSTAL_CODE_MASK, type ConformOptions } from './mask';

/** Longest licence of the provinces without a mask (spec §5 "others"), as lib/rules/driver-licence. */
const LICENCE_MAX_LENGTH = 30;

export interface MaskedFieldProps {
  name: string;
  label: string;
  /** Slots: A letter, 9 digit, X * _ letter or digit; other characters are shown between groups. */
  mask: string;
  autoComplete: string;
  hint?: ReactNode;
  disabled?: boolean;
  type?: 'text' | 'tel';
  inputMode?: HTMLAttributes<HTMLInputElement>['inputMode'];
  /** An HTML maxlength; a paste longer than it is still taken, separators and all. */
  maxLength?: number;
  conformOptions?: ConformOptions;
  /** A private value (data-private="<kind>"): co-browse never sends it, not even masked (issues 18, 26). */
  privateKind?: PrivateKind;
}

/** Writes the conformed value and caret into the control, then into the form (React then finds nothing to change). */
function show(input: HTMLInputElement, value: string, caret: number) {
  input.value = value;
  if (input.ownerDocument.activeElement === input) input.setSelectionRange(caret, caret);
}

/**
 * A text input that formats as the visitor types or pastes: letters
 * upper-cased, separators placed by the mask, characters the mask refuses
 * dropped, the caret kept after what was typed. Deleting a separator deletes
 * the character beside it.
 */
export function MaskedField({ name, label, mask, hint, type = 'text', conformOptions, privateKind, ...attributes }: MaskedFieldProps) {
  const field = useField(name);
  const { input, setInput } = field;

  // A value from elsewhere (an initial value, a mask that changed with the
  // licence province) is shown and checked in the current mask.
  const conformed = conform(mask, input, input.length, conformOptions).value;
  useEffect(() => {
    if (conformed !== input) setInput(conformed);
  }, [conformed, input, setInput]);

  function onChange(event: ChangeEvent<HTMLInputElement>) {
    const element = event.currentTarget;
    const raw = element.value;
    const caret = element.selectionStart ?? raw.length;
    let next = conform(mask, raw, caret, conformOptions);
    if (next.value === input && raw.length < input.length) {
      // Only a separator went: take the letter or digit beyond it as well.
      const forward = (event.nativeEvent as InputEvent).inputType === 'deleteContentForward';
      let at = forward ? caret : caret - 1;
      while (at >= 0 && at < raw.length && !/[A-Za-z0-9]/.test(raw[at] ?? '')) at += forward ? 1 : -1;
      if (at >= 0 && at < raw.length) {
        next = conform(mask, raw.slice(0, at) + raw.slice(at + 1), forward ? caret : at, conformOptions);
      }
    }
    show(element, next.value, next.caret);
    setInput(next.value);
  }

  function onPaste(event: ClipboardEvent<HTMLInputElement>) {
    const text = event.clipboardData.getData('text');
    if (!text) return;
    event.preventDefault();
    const element = event.currentTarget;
    const start = element.selectionStart ?? element.value.length;
    const end = element.selectionEnd ?? start;
    const next = conform(mask, element.value.slice(0, start) + text + element.value.slice(end), start + text.length, conformOptions);
    show(element, next.value, next.caret);
    setInput(next.value);
  }

  return (
    <InputField
      binding={field}
      name={name}
      label={label}
      hint={hint}
      type={type}
      {...attributes}
      autoCapitalize="characters"
      autoCorrect="off"
      spellCheck={false}
      {...(privateKind ? privateMark(privateKind) : {})}
      value={conformed}
      onChange={onChange}
      onPaste={onPaste}
    />
  );
}

/** Phone (spec §5): 999-999-9999, a phone keypad, autocomplete tel-national. */
export function PhoneField({ label, hint, ...props }: PresetFieldProps) {
  const t = useT();
  return (
    <MaskedField
      {...props}
      label={label ?? t('form.phone')}
      hint={hint ?? t('form.phoneHint')}
      mask={PHONE_MASK}
      conformOptions={phoneOptions}
      type="tel"
      inputMode="tel"
      autoComplete="tel-national"
      privateKind="phone"
    />
  );
}

/** Postal code (spec §5): A9A 9A9, upper-cased, autocomplete postal-code. */
export function PostalCodeField({ label, hint, ...props }: PresetFieldProps) {
  const t = useT();
  return (
    <MaskedField
      {...props}
      label={label ?? t('form.postalCode')}
      hint={hint ?? t('form.postalCodeHint')}
      mask={POSTAL_CODE_MASK}
      autoComplete="postal-code"
      privateKind="postalCode"
    />
  );
}

/** The brand's policy-number format in a province (brand file policyNumber, byProvince first). */
export function policyFormat(policyNumber: PolicyFormat & { byProvince: Record<string, PolicyFormat> }, province: string): PolicyFormat {
  return lookup(policyNumber.byProvince, province) ?? policyNumber;
}

/** Policy number (spec §5) in the brand's format for the visitor's province, or the one given. */
export function PolicyNumberField({ label, hint, format, ...props }: PresetFieldProps & { format?: PolicyFormat }) {
  const t = useT();
  const { brand, province } = useSite();
  const { length, mask } = format ?? policyFormat(brand.policyNumber, province);
  return (
    <MaskedField
      {...props}
      label={label ?? t('form.policyNumber')}
      hint={hint ?? t('form.policyNumberHint', { length })}
      mask={mask || freeMask(length)}
      autoComplete="off"
      privateKind="policyNumber"
    />
  );
}

/** The brand's driver-licence mask for a licence province; letters or digits up to 30 without one. */
export function licenceMask(masks: Record<string, string>, province: string): string {
  return lookup(masks, province) || freeMask(LICENCE_MAX_LENGTH);
}

/** Driver licence (spec §5), masked for the licence province chosen in LicenceProvinceField. */
export function DriverLicenceField({ label, province, ...props }: PresetFieldProps & { province: string }) {
  const t = useT();
  const { brand } = useSite();
  const mask = licenceMask(brand.driverLicenceMasks, province);
  return <MaskedField {...props} label={label ?? t('form.driverLicence')} mask={mask} autoComplete="off" privateKind="driverLicence" />;
}

/** Security code (spec §5): 6 digits, a numeric keypad, autocomplete one-time-code (SMS codes are offered). */
export function SecurityCodeField({ label, ...props }: PresetFieldProps) {
  const t = useT();
  return (
    <MaskedField
      {...props}
      label={label ?? t('form.code')}
      mask="999999"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={6}
      privateKind="securityCode"
    />
  );
}

const PIN_MASK = freeMask(8);

/** PIN (spec §5): 8 letters or digits, upper-cased. */
export function PinField({ label, ...props }: PresetFieldProps) {
  const t = useT();
  return (
    <MaskedField
      {...props}
      label={label ?? t('form.pin')}
      mask={PIN_MASK}
      autoComplete="one-time-code"
      privateKind="pin"
    />
  );
}
