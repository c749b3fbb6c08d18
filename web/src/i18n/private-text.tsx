import { use, type ReactNode } from 'react';
import { privateMark, type PrivateKind } from '@/lib/cobrowse/privacy';
import type { MessageKey } from './catalog';
import { MessagesContext } from './i18n';

/** A value of the customer's: its kind marks the element (lib/cobrowse/privacy.ts), so co-browse never sends it. */
export function Private({ kind, children }: { kind: PrivateKind; children: ReactNode }) {
  return <span {...privateMark(kind)}>{children}</span>;
}

/**
 * A message with the customer's values in it ("We sent a code to {value}"):
 * the message's own words stay public, each value named in kinds is wrapped
 * in Private, so a co-browsing agent reads the sentence but not the value.
 */
export function PrivateText({ id, params, kinds }: { id: MessageKey; params: Record<string, string>; kinds: Record<string, PrivateKind> }) {
  const messages = use(MessagesContext);
  const template = messages[id] ?? id;
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of template.matchAll(/\{(\w+)\}/g)) {
    const name = match[1]!;
    if (!Object.hasOwn(params, name)) continue;
    parts.push(template.slice(last, match.index));
    const kind = kinds[name];
    parts.push(kind ? <Private key={match.index} kind={kind}>{params[name]}</Private> : params[name]);
    last = match.index + match[0].length;
  }
  parts.push(template.slice(last));
  return <>{parts}</>;
}
