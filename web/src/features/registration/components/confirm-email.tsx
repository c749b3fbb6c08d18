import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import type { Message, MessageKey } from '@/i18n/catalog';
import { messageText, useT } from '@/i18n/i18n';
import { useApiClients } from '@/lib/api/use-api';
import { errorCodeOf, outcomeMessage, type ApiAnswer } from '@/lib/flow/error-catalogue';
import { registrationPath } from '@/lib/flow/registration-guard';
import { updateFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';
import { useOnce } from '@/lib/use-once';
import { optionsOf, registrationApi } from '@/features/registration/api';
import { afterCode } from '@/features/registration/flow';
import { useRegistrationResponse } from '@/features/registration/use-registration-response';

const TITLE_ID = 'registration-confirm-email-title';

/** The link's registration, option, token and language, read once from the address it was opened with. */
function readLink(): { id: string; validation: string; token: string; lang: string } {
  const query = new URLSearchParams(window.location.search);
  const get = (name: string) => query.get(name) ?? '';
  return { id: get('id'), validation: get('validation'), token: get('token'), lang: get('lang') };
}

/**
 * What the page says of a link the server refused (the link's own answers:
 * no roadblock, the visitor starts again): a wrong token (400
 * INVALID_ACTIVATION_CODE), a dead one (403 EXCEEDED_RETRIES_CODE_ACTIVATION:
 * expired after 10 minutes or tried 5 times), one used already or a
 * registration closed or expired (409 REGISTRATION_STATE), an unknown
 * registration (404). null: spec §8 decides.
 */
export function linkProblem(answer: ApiAnswer): MessageKey | null {
  const code = errorCodeOf(answer.data);
  if (answer.status === 400 && code === 'INVALID_ACTIVATION_CODE') return 'registration.confirmEmail.wrong';
  if (answer.status === 403 && code === 'EXCEEDED_RETRIES_CODE_ACTIVATION') return 'registration.confirmEmail.expired';
  if (answer.status === 409) return 'registration.confirmEmail.used';
  if (answer.status === 404) return 'registration.confirmEmail.invalid';
  return null;
}

/**
 * /registration/confirm-email?id=…&validation=…&token=…[&lang=] (spec §4.2
 * 202, a brand that proves an email by link): the entry of the link the
 * email submission sent. The token leaves the address bar and the history
 * at once; it is posted as the ask-email-link option's value, and the
 * answer continues the registration where the code would have: 200, the
 * password page; 240 ask-username (the email was taken meanwhile),
 * new-email. A link refused says why (linkProblem), with a way to start
 * again; a link without its parts is not valid.
 */
export function ConfirmEmail() {
  const t = useT();
  const clients = useApiClients();
  const { send, roadblock, dialog } = useRegistrationResponse();
  const [, navigate] = useLocation();
  const [link] = useState(readLink);
  const [problem, setProblem] = useState<Message | null>(null);
  usePageTitle(t('registration.confirmEmail.title'));
  // Opened once per page, StrictMode's second effect run included: the token is single use.
  useOnce(() => {
    const { id, validation, token, lang } = link;
    // The token leaves the address bar (and the history entry) before it is used; the language stays.
    navigate(lang ? `/registration/confirm-email?lang=${encodeURIComponent(lang)}` : '/registration/confirm-email', { replace: true });
    // This link starts the flow over: whatever this tab held belongs to another registration.
    updateFlow({ registration: null, emailToken: null });
    if (!id || !validation || !token) {
      setProblem('registration.confirmEmail.invalid');
      return;
    }
    void (async () => {
      let answer: Awaited<ReturnType<ReturnType<typeof registrationApi>['validate']>>;
      try {
        answer = await registrationApi(clients).validate(id, validation, token);
      } catch {
        // No answer: the technical roadblock.
        roadblock('technical');
        return;
      }
      const own = linkProblem(answer);
      if (own) {
        // Spec §8.1: a 404 or 409 marks the flow roadblocked.
        if (answer.status === 404 || answer.status === 409) updateFlow({ roadblocked: true });
        setProblem(own);
        return;
      }
      const result = await send(() => Promise.resolve(answer), 'other');
      if (!result) return;
      const { outcome } = result;
      if (outcome.kind === 'continue' && answer.value) {
        const value = answer.value;
        const email = 'email' in value ? value.email : undefined;
        const [next] = answer.status === 240 && 'twoFactorValidations' in value ? optionsOf(value.twoFactorValidations) : [];
        const target = afterCode(next);
        if (!target || 'roadblock' in target) return setProblem('registration.confirmEmail.invalid');
        updateFlow({ registration: { id, email, nextOption: next } });
        navigate(target.to, { replace: true });
        return;
      }
      if (outcome.kind === 'message') setProblem(outcomeMessage(outcome));
      // Otherwise the catalogue has opened its roadblock or dialog.
    })();
  });

  return (
    <section className="page page--narrow registration" aria-labelledby={TITLE_ID}>
      <h1 id={TITLE_ID}>{t('registration.confirmEmail.title')}</h1>
      <p role="status">{problem ? null : t('registration.confirmEmail.checking')}</p>
      <div role="alert" className={problem ? 'form-alert' : undefined}>
        {problem ? <p>{messageText(t, problem)}</p> : null}
      </div>
      {problem ? (
        <p className="registration__links">
          <Link href={registrationPath('identification')}>{t('registration.confirmEmail.restart')}</Link>
          {' '}
          <Link href="/">{t('registration.backToLogin')}</Link>
        </p>
      ) : null}
      {dialog}
    </section>
  );
}
