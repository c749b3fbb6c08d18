import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import type { Message, SectionKey } from '@/i18n/catalog';
import { messageText, useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { useApiClients } from '@/lib/api/use-api';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { updateFlow, useFlow, type TwoFactorOption } from '@/lib/flow/state';
import { registrationApi } from '@/features/registration/api';
import { codePage, selectionOf } from '@/features/registration/flow';
import { useRegistrationResponse } from '@/features/registration/use-registration-response';
import { RegistrationPage } from '@/features/registration/components/registration-page';

const TITLE_ID = 'registration-validation-title';

const optionLabels: Record<string, SectionKey> = {
  EMAIL: 'registration.validation.option.email',
  SMS: 'registration.validation.option.sms',
  PIN: 'registration.validation.option.pin',
  NONE: 'registration.validation.option.none',
};

/** The options the page offers: the known methods (ask-email is no choice: identification goes on to it). */
const choices = (options: TwoFactorOption[]) => options.filter((o) => Object.hasOwn(optionLabels, o.method));

/**
 * /registration/validation (spec §2.4, §4.2): how to verify the person.
 * NONE is the no-options roadblock; PIN the PIN page; email or SMS sends a
 * code, then its page.
 */
export function ValidationChoice() {
  const t = useT();
  const clients = useApiClients();
  const { registration } = useFlow();
  const response = useRegistrationResponse();
  const [, navigate] = useLocation();
  const options = choices(registration?.twoFactorValidations ?? []);
  const [chosen, setChosen] = useState(options[0]?.id ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Message | null>(null);
  const id = registration?.id ?? '';

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const option = options.find((o) => o.id === chosen);
    if (!option) return;
    setError(null);
    if (option.method === 'NONE') return response.roadblock('no-options');
    const page = codePage(option.method);
    if (!page) return response.roadblock('technical');
    if (option.method === 'PIN') {
      updateFlow((s) => ({ registration: { ...s.registration, ...selectionOf(option) } }));
      navigate(page);
      return;
    }
    setBusy(true);
    const result = await response.send(() => registrationApi(clients).sendCode(id, option.id), 'other');
    setBusy(false);
    if (!result) return;
    const { outcome } = result;
    if (outcome.kind === 'continue') {
      updateFlow((s) => ({ registration: { ...s.registration, ...selectionOf(option) } }));
      navigate(page);
      return;
    }
    if (outcome.kind === 'message') setError(outcomeMessage(outcome));
    else if (outcome.kind === 'returned') response.roadblock('technical');
  };

  return (
    <RegistrationPage
      titleId={TITLE_ID}
      title={t('registration.validation.title')}
      back={<Link href="/registration/identification">{t('registration.back')}</Link>}
      dialog={response.dialog}
    >
      <form noValidate className="form" onSubmit={(event) => void submit(event)} aria-labelledby={TITLE_ID}>
        <div role="alert" className={error ? 'form-alert' : undefined}>
          {error ? <p>{messageText(t, error)}</p> : null}
        </div>
        <fieldset className="field field--group registration__options">
          <legend className="field__label">{t('registration.validation.legend')}</legend>
          {options.map((option) => (
            <div key={option.id} className="field--radio">
              <input
                id={`option-${option.id}`}
                type="radio"
                name="option"
                value={option.id}
                checked={chosen === option.id}
                onChange={() => setChosen(option.id)}
              />
              <label htmlFor={`option-${option.id}`}>
                <PrivateText id={optionLabels[option.method] ?? 'registration.validation.option.none'} params={{ value: option.maskedValue }} kinds={{ value: option.method === 'SMS' ? 'phone' : 'email' }} />
              </label>
            </div>
          ))}
        </fieldset>
        <div className="registration__actions">
          <button type="submit" className="button button--primary" disabled={busy} aria-busy={busy || undefined}>
            {t('registration.next')}
          </button>
        </div>
      </form>
    </RegistrationPage>
  );
}
