import { useEffect, useRef, useState } from 'react';
import type { Message } from '@/i18n/catalog';
import { outcomeMessage } from '@/lib/flow/error-catalogue';
import { useApiClients } from '@/lib/api/use-api';
import { ResendLink } from '@/lib/flow/resend-link';
import { codeResent, leaveVerify, useResetProgress } from '@/lib/flow/reset-state';
import { recoveryApi } from '@/features/recovery/api';
import { MAX_RESENDS, MIN_SPINNER_MS } from '@/features/recovery/limits';
import { useRecoveryResponse } from '@/features/recovery/use-recovery-response';

const TEXTS = {
  notReceived: 'recovery.verify.notReceived',
  resend: 'recovery.verify.resend',
  resending: 'recovery.verify.resending',
  resent: 'recovery.verify.resent',
} as const;

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface ResendCodeProps {
  id: string;
  validationId: string;
  /** A new code went out (the page clears what was typed). */
  onSent: () => void;
  /** /verify opened with a new code just sent (the resend-code roadblock's button): the status says so. */
  sentOnArrival?: boolean;
}

/**
 * The resend link of /verify (spec §2.1, §9): a new code, the old one dies.
 * The spinner shows for at least a second, so a quick answer is still seen
 * to happen; a status region says the code went. At most 4 resends: the
 * fifth ask, or the server refusing one, is the resend-reset-password roadblock.
 */
export function ResendCode({ id, validationId, onSent, sentOnArrival = false }: ResendCodeProps) {
  const clients = useApiClients();
  const { send, roadblock, dialog } = useRecoveryResponse();
  const { resends } = useResetProgress();
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState(sentOnArrival);
  // A refusal to wait for (429 RATE_LIMITED or BUSY): the code typed still works.
  const [refused, setRefused] = useState<Message | null>(null);
  // A second click before the first finished is ignored; the button keeps
  // the focus (aria-disabled, not disabled) while it works.
  const busy = useRef(false);
  // Whether this page still shows the link: the spinner's second outlives
  // the page when an answer opened a roadblock, or the visitor left.
  const shown = useRef(false);
  useEffect(() => {
    shown.current = true;
    return () => {
      shown.current = false;
    };
  }, []);

  const leave = () => {
    roadblock('resend-reset-password');
    leaveVerify();
  };

  const resend = async () => {
    if (busy.current) return;
    if (resends >= MAX_RESENDS) {
      leave();
      return;
    }
    busy.current = true;
    setSending(true);
    setSent(false);
    setRefused(null);
    // What the answer means for the recovery is kept as soon as it is in:
    // a new code's id, or /verify closed behind a roadblock the answer has
    // already opened (send navigates to it). Only what this page shows
    // waits for the spinner's second, and only while the page is shown: a
    // late leaveVerify() would close a /verify opened since (issue 12, seen
    // as one test's resend clearing the next test's recovery).
    const answered = send(() => recoveryApi(clients).resend(id, validationId), 'reset-resend').then((result) => {
      if (!result || result.outcome.kind === 'roadblock' || result.outcome.kind === 'navigate') leaveVerify();
      else if (result.outcome.kind === 'continue' && result.answer.value) codeResent(result.answer.value);
      return result;
    });
    const [result] = await Promise.all([answered, wait(MIN_SPINNER_MS)]);
    if (!shown.current) return;
    busy.current = false;
    setSending(false);
    if (!result) return;
    const { outcome, answer } = result;
    if (outcome.kind === 'roadblock' || outcome.kind === 'navigate') return;
    if (outcome.kind === 'continue' && answer.value) {
      setSent(true);
      onSent();
      return;
    }
    if (outcome.kind === 'message' && answer.status === 429) {
      setRefused(outcomeMessage(outcome));
      return;
    }
    if (outcome.kind === 'returned' || outcome.kind === 'continue' || outcome.kind === 'message') roadblock('technical');
    if (outcome.kind !== 'soft-roadblock') leaveVerify();
  };

  return (
    <ResendLink texts={TEXTS} sending={sending} sent={sent} refused={refused} onResend={() => void resend()}>
      {dialog}
    </ResendLink>
  );
}
