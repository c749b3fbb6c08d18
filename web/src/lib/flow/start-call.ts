import { navigate } from 'wouter/use-browser-location';
import { interpretResponse, type ApiAnswer } from './error-catalogue';
import { roadblockPath } from './roadblocks';
import { updateFlow } from './state';

/**
 * Spec §7's start call (GET api/v1/welcome, made once as the app starts):
 * its answer is ignored, except maintenance (spec §8.1: 503 and 530), which
 * takes the visitor to the maintenance roadblock with the roadblocked flag
 * set, whatever page the visit began on. Resolves true when it did.
 */
export async function startCall(request: () => Promise<ApiAnswer>): Promise<boolean> {
  let answer: ApiAnswer;
  try {
    answer = await request();
  } catch {
    return false; // no answer to ignore: the flow's own calls will tell
  }
  const outcome = interpretResponse(answer, 'other');
  if (outcome.kind !== 'roadblock' || outcome.page !== 'maintenance') return false;
  updateFlow({ roadblocked: true, errorCode: null });
  navigate(roadblockPath('maintenance'), { replace: true });
  return true;
}
