import { useApiClients } from '@/lib/api/use-api';
import { tokenApi } from '@/lib/flow/email-token';
import { useSignIn } from '@/lib/flow/use-sign-in';
import type { RegistrationResponse } from '@/features/registration/use-registration-response';

/**
 * The end of a legacy registration that signs the person in (an account
 * created, or a policy linked to an existing one): the answer's email is the
 * username, and none is the technical roadblock; an email token held is
 * deleted first (spec §4.2, §7: the server consumed it already, so the answer
 * changes nothing), then useSignIn's SSO post. `leaving` holds the submit
 * button back meanwhile.
 */
export function useRegisteredSignIn(response: RegistrationResponse): {
  leaving: boolean;
  finish: (username: string | undefined, password: string, token: string | null | undefined) => Promise<void>;
} {
  const clients = useApiClients();
  const { leaving, signIn } = useSignIn();
  const finish = async (username: string | undefined, password: string, token: string | null | undefined) => {
    if (!username) return response.roadblock('technical');
    if (token) await tokenApi(clients).remove(token).catch(() => undefined);
    signIn(username, password);
  };
  return { leaving, finish };
}
