import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import type { Message } from '@/i18n/catalog';
import { useApiClients } from '@/lib/api/use-api';
import { accountApi } from '@/lib/flow/account-api';
import { setPkmsAccount } from '@/lib/flow/cookies';
import { outcomeMessage, type FlowOutcome } from '@/lib/flow/error-catalogue';
import { holdTemporaryPassword } from '@/lib/flow/state';
import { useFlowResponse } from '@/lib/flow/use-flow-response';
import { useSite } from '@/lib/site/site-context';
import { randomAttemptLimit } from '@/lib/flow/attempts';
import { postToSso } from '@/lib/flow/sso-form';
import { getPasskey, PASSWORD_SIGN_IN } from '@/lib/webauthn/webauthn';

export interface LoginFlow {
  /**
   * Signs in with checked values (spec §4.3): find, then the temporary
   * password (status T, on to /reset) or the authentication and the web SSO
   * form post. Resolves the message to show, or null when the page is left.
   */
  signIn(email: string, password: string): Promise<Message | null>;
  /**
   * Signs in with a passkey (issue 31): the browser's chooser, or with
   * `conditional` its autofill on the email field (resolves only once the
   * visitor picks one; `signal` aborts it). The assertion's ticket goes to
   * the SSO form post as a password's does. Resolves the message to show,
   * or null (the page is left, or the visitor cancelled).
   */
  signInWithPasskey(mediation?: 'conditional', signal?: AbortSignal): Promise<Message | null>;
  /** The SSO form post is under way: the page is being left, so it takes no second submit. */
  leaving: boolean;
  /** The soft roadblock dialog, when one is open. */
  dialog: ReactNode;
}

export function useLoginFlow(): LoginFlow {
  const clients = useApiClients();
  const { run, roadblock, dialog } = useFlowResponse();
  const [, navigate] = useLocation();
  const { brand, language } = useSite();
  // Per page visit: a new visit draws a new limit and starts counting again.
  const [limit] = useState(() => randomAttemptLimit());
  const failures = useRef(0);
  const [leaving, setLeaving] = useState(false);
  const ssoUrl = brand.sso.loginUrl[language];

  // Back from the SSO's page, the browser may show this page from its cache.
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) setLeaving(false);
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, []);

  /** What the page shows for an outcome that is no success; login.error counts a failed attempt. */
  const failure = useCallback(
    (outcome: FlowOutcome): Message | null => {
      if (outcome.kind === 'message') {
        if (outcome.key !== 'login.error') return outcomeMessage(outcome);
        failures.current += 1;
        if (failures.current < limit) return 'login.error';
        roadblock('login-difficulties');
        return null;
      }
      // Roadblocks, navigation and the soft roadblock are done; an answer the
      // login gives no meaning to (a 409 after authentication) is technical.
      if (outcome.kind === 'returned' || outcome.kind === 'continue') roadblock('technical');
      return null;
    },
    [limit, roadblock],
  );

  const signIn = useCallback(
    async (email: string, password: string): Promise<Message | null> => {
      const api = accountApi(clients);
      const found = await run(() => api.find(email), 'login-find');
      if (!found) return null;
      const account = found.answer.value;
      if (found.outcome.kind !== 'continue' || !account) return failure(found.outcome);
      // The locked-account roadblock and the SSO round trip read the account id here.
      setPkmsAccount(account.id);

      if (account.status === 'T') {
        const temporary = await run(() => api.temporary(account.id, password), 'temporary');
        if (!temporary) return null;
        if (temporary.outcome.kind !== 'continue') return failure(temporary.outcome);
        holdTemporaryPassword({ id: account.id, email: account.email || email }, password);
        navigate('/reset');
        return null;
      }

      const authenticated = await run(() => api.authenticate(account.id, password), 'authentication');
      if (!authenticated) return null;
      const ticket = authenticated.answer.value?.loginTicket;
      if (authenticated.outcome.kind !== 'continue' || ticket === undefined) return failure(authenticated.outcome);
      setLeaving(true);
      sessionStorage.setItem(PASSWORD_SIGN_IN, '1');
      postToSso(ssoUrl, { username: email, password, ticket });
      return null;
    },
    [clients, run, failure, navigate, ssoUrl],
  );

  const signInWithPasskey = useCallback(
    async (mediation?: 'conditional', signal?: AbortSignal): Promise<Message | null> => {
      const v1 = clients.second;
      let ceremony: { challengeId?: string; options?: unknown } | undefined;
      if (mediation === 'conditional') {
        // The autofill's begin runs as the page opens, unasked: a failure
        // (busy, maintenance, a shared address over its limit) says nothing
        // and leads nowhere; the visitor signs in as they choose.
        const begun = await v1.request('post', '/passkeys/login').catch(() => null);
        if (begun?.status !== 200) return null;
        ceremony = begun.data as typeof ceremony;
      } else {
        const begun = await run(() => v1.request('post', '/passkeys/login'), 'authentication');
        if (!begun) return null;
        ceremony = begun.answer.data as typeof ceremony;
        if (begun.answer.status !== 200) return begun.outcome.kind === 'message' ? outcomeMessage(begun.outcome) : null;
      }
      if (!ceremony?.challengeId) return null;
      let credential;
      try {
        credential = await getPasskey(ceremony.options, mediation, signal);
      } catch {
        return null; // cancelled, aborted, or no passkey here
      }
      const body = { challengeId: ceremony.challengeId, credential };
      const done = await run(() => v1.request('post', '/passkeys/login/finish', { body }), 'authentication');
      if (!done) return null;
      const signedIn = done.answer.data as { loginTicket?: string; email?: string } | undefined;
      if (done.answer.status !== 200 || !signedIn?.loginTicket || !signedIn.email) {
        return done.outcome.kind === 'message' || done.answer.status === 400 ? 'login.passkeyError' : null;
      }
      setLeaving(true);
      sessionStorage.removeItem(PASSWORD_SIGN_IN);
      postToSso(ssoUrl, { username: signedIn.email, password: '', ticket: signedIn.loginTicket });
      return null;
    },
    [clients, run, ssoUrl],
  );

  return { signIn, signInWithPasskey, leaving, dialog };
}
