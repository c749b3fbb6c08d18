import { useId } from 'react';
import { Link } from 'wouter';
import { useT } from '@/i18n/i18n';
import type { RoadblockPage } from '@/lib/flow/roadblocks';
import { useFlow } from '@/lib/flow/state';
import { usePageTitle } from '@/lib/page-title';
import { CallUsCard } from '@/features/roadblock/components/call-us-card';
import { LockedAccountNotice } from '@/features/roadblock/components/locked-account-notice';
import { ResendCodeAction } from '@/features/roadblock/components/resend-code-action';
import { TokenExpiredAction, tokenExpiredText } from '@/features/roadblock/components/token-expired-action';
import { roadblockContent } from '@/features/roadblock/content';
import '@/features/roadblock/roadblock.css';

/** One page of the /roadblock group (spec §2.6): title, text, its action and the call-us card. */
export function RoadblockView({ page }: { page: RoadblockPage }) {
  const t = useT();
  const flow = useFlow();
  const { errorCode } = flow;
  const titleId = useId();
  const content = roadblockContent[page];
  usePageTitle(t(content.title));

  return (
    <section className="page page--narrow roadblock" aria-labelledby={titleId}>
      <h1 id={titleId}>{t(content.title)}</h1>
      <p>{t(content.behaviour === 'token-expired' ? tokenExpiredText(flow) : content.text)}</p>
      {content.behaviour === 'locked-account' ? <LockedAccountNotice /> : null}
      {errorCode ? <p className="roadblock__code">{t('roadblock.errorCode', { code: errorCode })}</p> : null}
      {content.behaviour === 'reset-password' ? (
        <Link href="/forgot" className="button button--primary">
          {t('roadblock.resetPassword')}
        </Link>
      ) : null}
      {content.behaviour === 'token-expired' ? <TokenExpiredAction /> : null}
      {content.behaviour === 'resend-code' ? <ResendCodeAction /> : null}
      <CallUsCard behaviour={content.behaviour} />
    </section>
  );
}
