import { useEffect, useReducer, useRef, useState, type MouseEvent } from 'react';
import { flushSync } from 'react-dom';
import { useT } from '@/i18n/i18n';
import type { MessageKey } from '@/i18n/catalog';
import { PageHeading } from '@/console/heading';
import { languageName } from '@/console/chat/conversation';
import { cobrowseApi, cobrowseError, reasonKey, type LiveStatus, type ViewerServerFrame } from './api';
import { openViewerSocket, type OpenViewerSocket, type SocketStatus, type ViewerSocket } from './socket';
import type { CreateReplay, Replay, Size } from './replay';
import { ErrorAlert } from '@/console/alert';

const TITLE_ID = 'cobrowse-viewer-title';

/** The agent's pointer goes to the visitor at most this often (ms): 20 a second. */
export const POINTER_EVERY_MS = 50;

const loadReplayChunk = () => import('./replay').then((m) => m.createReplay);

interface View {
  connection: SocketStatus;
  /** The close code that ended the socket for good (4401, 4403, 4404, 4409, 1000). */
  final?: number;
  status: LiveStatus | null;
  reason?: string;
  /** A full snapshot of the visitor's page was shown. */
  shown: boolean;
}

type Action =
  | { kind: 'connection'; connection: SocketStatus }
  | { kind: 'final'; code: number }
  | { kind: 'state'; status: LiveStatus; reason?: string }
  | { kind: 'shown' };

/** What a final close code says (the others: no longer live). */
const finalKey: Record<number, MessageKey> = {
  4401: 'console.cobrowse.viewer.signedOut',
  4403: 'console.cobrowse.viewer.forbidden',
  4409: 'console.cobrowse.viewer.notHolder',
};

function reduce(view: View, action: Action): View {
  switch (action.kind) {
    case 'connection':
      return { ...view, connection: action.connection };
    case 'final':
      return { ...view, final: action.code };
    case 'state':
      if (view.status === 'ended') return view;
      return { ...view, status: action.status, reason: action.reason };
    case 'shown':
      return view.shown ? view : { ...view, shown: true };
  }
}

const FULL_SNAPSHOT = 2;

function isFullSnapshot(data: unknown): boolean {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === FULL_SNAPSHOT;
}

/**
 * /cobrowse/sessions/:id: the visitor's page live (rrweb's replayer fed by the
 * viewer socket), its state in a status region, the End button; the agent's
 * pointer over the page is shown to the visitor as a highlight (no control).
 */
export function ViewerPage({
  id,
  brand = '',
  language = '',
  openSocket = openViewerSocket,
  loadReplay = loadReplayChunk,
}: {
  id: string;
  brand?: string;
  language?: string;
  openSocket?: OpenViewerSocket;
  loadReplay?: () => Promise<CreateReplay>;
}) {
  const t = useT();
  const [view, dispatch] = useReducer(reduce, { connection: 'connecting', status: null, shown: false });
  const [size, setSize] = useState<Size | null>(null);
  const [stageWidth, setStageWidth] = useState(0);
  const [error, setError] = useState<MessageKey | null>(null);
  const [ending, setEnding] = useState(false);
  const stage = useRef<HTMLDivElement>(null);
  const back = useRef<HTMLAnchorElement>(null);
  const host = useRef<HTMLDivElement>(null);
  const socket = useRef<ViewerSocket | null>(null);
  const replay = useRef<Replay | null>(null);
  const pointer = useRef<{ timer: ReturnType<typeof setTimeout> | null; next: { x: number; y: number } | null }>({ timer: null, next: null });
  const frameTitle = t('console.cobrowse.viewer.frame');

  useEffect(() => {
    let live = true;
    // Events that come before rrweb's chunk is loaded wait here, in order.
    const early: unknown[] = [];
    const show = (data: unknown) => {
      if (replay.current) replay.current.add(data);
      else early.push(data);
      if (isFullSnapshot(data)) dispatch({ kind: 'shown' });
    };
    void loadReplay().then((create) => {
      if (!live || !host.current) return;
      // rrweb sizes its iframe to the visitor's page (1200 px, say) as it
      // reports the size: the scale is rendered in the same task, so the
      // replay never stands unscaled past the stage for a frame.
      replay.current = create(host.current, { frameTitle, onResize: (next) => flushSync(() => setSize(next)) });
      for (const data of early.splice(0)) replay.current.add(data);
    });
    const onFrame = (frame: ViewerServerFrame) => {
      if (frame.type === 'state') dispatch({ kind: 'state', status: frame.status, reason: frame.reason });
      else if (frame.type === 'event') show(frame.data);
    };
    socket.current = openSocket({
      session: id,
      onFrame,
      onStatus: (connection) => dispatch({ kind: 'connection', connection }),
      onFinal: (code) => dispatch({ kind: 'final', code }),
    });
    const timers = pointer.current;
    return () => {
      live = false;
      socket.current?.close();
      socket.current = null;
      replay.current?.destroy();
      replay.current = null;
      if (timers.timer) clearTimeout(timers.timer);
    };
    // frameTitle: the iframe's title is set once; a language change does not rebuild the replay.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, openSocket, loadReplay]);

  useEffect(() => {
    if (replay.current) replay.current.iframe.title = frameTitle;
  }, [frameTitle]);

  useEffect(() => {
    const el = stage.current;
    if (!el) return;
    setStageWidth(el.clientWidth);
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setStageWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const ended = view.status === 'ended';
  const gone = view.connection === 'closed' && !ended;
  const over = ended || gone;

  // The End button gives way to the link: focus follows it rather than
  // falling to <body> (unless the agent is elsewhere on the page).
  useEffect(() => {
    if (over && (document.activeElement === null || document.activeElement === document.body)) back.current?.focus();
  }, [over]);
  const scale = size && stageWidth > 0 ? Math.min(1, stageWidth / size.width) : 1;

  const sendPointer = (x: number, y: number) => socket.current?.send({ type: 'pointer', data: { x, y } });
  const move = (event: MouseEvent<HTMLDivElement>) => {
    if (!host.current || over || !view.shown) return;
    const rect = host.current.getBoundingClientRect();
    const win = replay.current?.iframe.contentWindow;
    const x = Math.round((event.clientX - rect.left) / scale + (win?.scrollX ?? 0));
    const y = Math.round((event.clientY - rect.top) / scale + (win?.scrollY ?? 0));
    const p = pointer.current;
    if (p.timer) {
      p.next = { x, y };
      return;
    }
    sendPointer(x, y);
    const flush = () => {
      p.timer = null;
      const next = p.next;
      p.next = null;
      if (next) {
        sendPointer(next.x, next.y);
        p.timer = setTimeout(flush, POINTER_EVERY_MS);
      }
    };
    p.timer = setTimeout(flush, POINTER_EVERY_MS);
  };

  const end = async () => {
    setEnding(true);
    setError(null);
    const answer = await cobrowseApi.end(id);
    setEnding(false);
    if (answer.status === 200) dispatch({ kind: 'state', status: 'ended', reason: answer.data?.endReason ?? 'agent' });
    else setError(cobrowseError(answer.errorCode));
  };

  let status: string;
  if (ended) status = t('console.cobrowse.viewer.ended', { reason: t(reasonKey(view.reason)) });
  else if (gone) status = t(finalKey[view.final ?? 0] ?? 'console.cobrowse.viewer.gone');
  else if (view.connection === 'reconnecting') status = t('console.cobrowse.viewer.reconnecting');
  else if (view.status === 'active' && view.shown)
    status = brand
      ? t('console.cobrowse.viewer.active', { brand, language: language ? languageName(language, t) : '—' })
      : t('console.cobrowse.viewer.activeNoBrand');
  else status = t('console.cobrowse.viewer.waiting');

  return (
    <section className="console-page cobrowse-viewer" aria-labelledby={TITLE_ID}>
      <PageHeading id={TITLE_ID}>{t('console.cobrowse.viewer.title')}</PageHeading>
      <p role="status" className="cobrowse-viewer__status">
        {status}
      </p>
      <div className="console-actions">
        {over ? (
          // A plain link, a document load: this page's looser style policy
          // must not outlive it through a client-side route.
          <a ref={back} href="/cobrowse" className="console-button console-button--quiet">
            {t('console.cobrowse.viewer.back')}
          </a>
        ) : (
          <button type="button" className="console-button" onClick={() => void end()} disabled={ending} aria-busy={ending || undefined}>
            {t('console.cobrowse.viewer.end')}
          </button>
        )}
      </div>
      <ErrorAlert error={error} />
      <p className="cobrowse-viewer__help">{t('console.cobrowse.viewer.help')}</p>
      <div
        ref={stage}
        className="cobrowse-stage"
        role="region"
        aria-label={t('console.cobrowse.viewer.stage')}
        onMouseMove={move}
        style={size ? { height: Math.ceil(size.height * scale) } : undefined}
        hidden={over}
      >
        <div
          ref={host}
          className="cobrowse-stage__replay"
          inert
          style={size ? { width: size.width, height: size.height, transform: `scale(${scale})` } : undefined}
        />
      </div>
    </section>
  );
}

/** The route: the visitor's brand and language come in the query (viewerHref). */
export default function ViewerRoute({ id }: { id: string }) {
  const q = new URLSearchParams(window.location.search);
  return <ViewerPage id={id} brand={q.get('brand') ?? ''} language={q.get('language') ?? ''} />;
}
