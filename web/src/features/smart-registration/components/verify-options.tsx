import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import type { Message, SectionKey } from '@/i18n/catalog';
import { messageText, useT } from '@/i18n/i18n';
import { PrivateText } from '@/i18n/private-text';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { previousPage } from '@/lib/flow/previous-page';
import { readFlow, updateFlow, type SmartOption } from '@/lib/flow/state';
import { useOnce } from '@/lib/use-once';
import { isOptionName } from '@/features/smart-registration/api';
import { keptOptions, loadOptions } from '@/features/smart-registration/arrival';
import { SMART_PATHS } from '@/features/smart-registration/session';
import { useSmartSend, type SmartSend } from '@/features/smart-registration/use-smart-send';
import { BackButton } from './back-button';
import { ChoiceFieldset } from './choice-fieldset';
import { SmartPage } from './smart-page';

const LABELS: Record<SmartOption['optionName'], SectionKey> = {
  EMAIL: 'smartRegistration.options.email',
  SMS: 'smartRegistration.options.sms',
  PIN: 'smartRegistration.options.pin',
};

/**
 * Sends a code to the option (or chooses the PIN), keeps it for the code
 * page, and goes where the session leads; a message to show otherwise.
 */
async function choose(smart: SmartSend, option: SmartOption): Promise<Message | null> {
  const result = await smart.send((api) => api.send(option.id));
  if (result?.outcome.kind === 'message') return outcomeMessage(result.outcome);
  if (result?.outcome.kind === 'returned') smart.roadblock('technical');
  if (result?.outcome.kind !== 'continue') return null;
  // The answer names the option and where its code went (the code page's text).
  const { optionName, maskedValue = option.data } = result.answer.value ?? {};
  const sent: SmartOption = { id: option.id, optionName: isOptionName(optionName) ? optionName : option.optionName, data: maskedValue };
  updateFlow((s) => (s.smartRegistration ? { smartRegistration: { ...s.smartRegistration, option: sent, resends: 0 } } : {}));
  await smart.follow();
  return null;
}

/**
 * /create-an-account/verify/options (spec §2.5, §4.1): none is the
 * unavailable-option roadblock; a single option is chosen and its code sent
 * at once (unless the visitor came back from the code page); several are
 * offered.
 */
export function VerifyOptions() {
  const t = useT();
  const [, navigate] = useLocation();
  const smart = useSmartSend();
  // Back from the code page shows even a single option, so a further Back can reach identification.
  const [fromCode] = useState(() => previousPage() === SMART_PATHS.verifyCode);
  // Kept when the visitor came by a step's Next or Back (follow asked for them): several are shown in the first paint.
  const [kept] = useState(() => keptOptions(readFlow().smartRegistration?.token));
  const [options, setOptions] = useState<SmartOption[] | null>(() => (kept && (kept.length > 1 || (kept.length === 1 && fromCode)) ? kept : null));
  const [chosen, setChosen] = useState(() => options?.[0]?.id ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Message | null>(null);

  // Once: a second run (StrictMode) must not send a second code.
  useOnce(() => {
    if (options) return;
    void (kept ? Promise.resolve(kept) : loadOptions(() => smart.send((api) => api.options()), smart.roadblock)).then(async (known) => {
      if (!known) return;
      if (known.length === 0) {
        updateFlow({ roadblocked: true, smartRegistration: null });
        navigate(SMART_PATHS.unavailableOption);
        return;
      }
      const [only] = known;
      if (known.length === 1 && only && !fromCode) return setError(await choose(smart, only));
      setOptions(known);
      setChosen(known[0]?.id ?? '');
    });
  });

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const option = options?.find((o) => o.id === chosen);
    if (busy || !option) return;
    setBusy(true);
    setError(null);
    setError(await choose(smart, option));
    setBusy(false);
  };

  return (
    <SmartPage title={t('smartRegistration.options.title')} dialog={smart.dialog}>
      <div role="alert" className={error ? 'form-alert' : undefined}>
        {error ? <p>{messageText(t, error)}</p> : null}
      </div>
      {options ? (
        <form noValidate className="form" onSubmit={(event) => void submit(event)}>
          <ChoiceFieldset
            name="option"
            legend={t('smartRegistration.options.legend')}
            choices={options.map((o) => ({ value: o.id, label: <PrivateText id={LABELS[o.optionName]} params={{ value: o.data }} kinds={{ value: o.optionName === 'SMS' ? 'phone' : 'email' }} /> }))}
            chosen={chosen}
            onChoose={setChosen}
          />
          <div className="smart-registration__actions">
            <button type="submit" className="button button--primary" disabled={busy} aria-busy={busy || undefined}>
              {t('smartRegistration.next')}
            </button>
            <BackButton smart={smart} />
          </div>
        </form>
      ) : error ? null : (
        <p role="status" className="smart-registration__loading">
          {t('smartRegistration.loading')}
        </p>
      )}
    </SmartPage>
  );
}
