import type { ReactNode } from 'react';

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"']+/gi;

/** A link's address if it is a safe one to open (http or https), else null. */
export function safeHref(text: string): string | null {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * A message's text as text (never HTML), its http(s) addresses as links that
 * open apart from the console (no opener, no referrer). Line breaks kept by CSS.
 */
export function MessageText({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    // A sentence's closing punctuation is not part of the address.
    const raw = match[0].replace(/[.,;:!?)\]]+$/, '');
    const start = match.index ?? 0;
    const href = safeHref(raw);
    if (!href) continue;
    if (start > last) parts.push(text.slice(last, start));
    parts.push(
      <a key={start} href={href} target="_blank" rel="noopener noreferrer nofollow">
        {raw}
      </a>,
    );
    last = start + raw.length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <span className="chat-text">{parts}</span>;
}
