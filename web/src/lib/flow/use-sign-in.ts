import { useCallback, useState } from 'react';
import { updateFlow } from './state';
import { forgetOnLeaving, postToSso } from './sso-form';
import { useSite } from '@/lib/site/site-context';

/**
 * The end of a registration, legacy or smart (an account created, or a
 * policy linked to an existing one): the registration states and the email
 * token go once the page does (forgetOnLeaving), and the visitor is signed
 * in through the SSO form post, which lands on /my-account. `leaving` holds
 * the submit button back meanwhile.
 */
export function useSignIn(): { leaving: boolean; signIn: (username: string, password: string) => void } {
  const { brand, language } = useSite();
  const [leaving, setLeaving] = useState(false);
  const url = brand.sso.loginUrl[language];
  const signIn = useCallback(
    (username: string, password: string) => {
      setLeaving(true);
      forgetOnLeaving(() => updateFlow({ registration: null, emailToken: null, smartRegistration: null, roadblocked: false }));
      postToSso(url, { username, password });
    },
    [url],
  );
  return { leaving, signIn };
}
