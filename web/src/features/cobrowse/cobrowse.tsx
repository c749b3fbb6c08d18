import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useT } from '@/i18n/i18n';
import type { SectionKey } from '@/i18n/catalog';
import { useApiClients } from '@/lib/api/use-api';
import { COBROWSE_LIVE_KEY, readLiveSession, type CobrowseStart } from '@/lib/cobrowse/start';
import { openChatSocket, type ChatSocket } from '@/lib/chat/socket';
import { inSection } from '@/lib/site/in-section';
import { cobrowseApi, cobrowseSocketUrl, type CobrowseClientFrame, type CobrowseServerFrame } from './api';
import { Banner, PointerDot, type Pointer } from './banner';
import { CodeDialog, ConsentDialog } from './dialogs';
import { createPacer, type Pacer } from './pacer';
import type { Recorder } from './recorder';
import './cobrowse.css';

// Co-browse, the visitor's side (issue 18, docs/cobrowse.md): the consent
// dialog, the code, the sharing banner, the socket and, after Accept and the
// server's first snapshot request, the recorder (a chunk of its own). Loaded
// by the shell's CobrowseRoot only when the visitor asks to share or this tab
// remembers a session that may be live.

export interface CobrowseProps {
  /** A request to share (footer link or chat), null when none is waiting. */
  request: CobrowseStart | null;
  onRequestHandled: () => void;
}

/** The session as this page knows it. */
export type Phase =
  | { kind: 'idle' }
  | { kind: 'waiting'; code: string | null; expiresAt: string | null }
  | { kind: 'active'; agentName: string }
  | { kind: 'ended' };

const errorKeys: Record<string, SectionKey> = {
  COBROWSE_UNAVAILABLE: 'cobrowse.error.COBROWSE_UNAVAILABLE',
  RATE_LIMITED: 'cobrowse.error.RATE_LIMITED',
  COBROWSE_STATE: 'cobrowse.error.COBROWSE_STATE',
};

/** Remembers the live session in this tab (null: forgets it), so the shell loads this chunk after a reload or in a new page. */
function writeLiveSession(id: string | null) {
  try {
    if (id) window.sessionStorage.setItem(COBROWSE_LIVE_KEY, id);
    else window.sessionStorage.removeItem(COBROWSE_LIVE_KEY);
  } catch {
    // storage disabled: the banner lasts until this page unloads
  }
}

export default inSection('cobrowse', CobrowseSession);

function CobrowseSession({ request, onRequestHandled }: CobrowseProps) {
  const t = useT();
  const clients = useApiClients();
  const api = useMemo(() => cobrowseApi(clients.second), [clients]);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  // A page of a tab that remembers a session keeps the banner's room from
  // its first paint until the server has said whether it is still live
  // (issue 32: the page does not move down when the banner comes back).
  const [resuming, setResuming] = useState(() => readLiveSession() !== null);
  const [consent, setConsent] = useState<CobrowseStart | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<SectionKey | null>(null);
  const [codeOpen, setCodeOpen] = useState(false);
  const [pointer, setPointer] = useState<Pointer | null>(null);
  const socket = useRef<ChatSocket<CobrowseClientFrame> | null>(null);
  const recorder = useRef<Recorder | null>(null);
  const recorderLoading = useRef(false);
  const pacer = useRef<Pacer | null>(null);
  /** Where the focus was when a dialog opened (the footer link, the chat's button): it goes back there. */
  const opener = useRef<HTMLElement | null>(null);
  // The dialog the opener was in (the chat), found while it is in the page.
  const openerHome = useRef<Element | null>(null);
  const live = phase.kind === 'waiting' || phase.kind === 'active';

  const teardown = useCallback(() => {
    recorder.current?.stop();
    recorder.current = null;
    recorderLoading.current = false;
    pacer.current?.stop();
    pacer.current = null;
    socket.current?.close();
    socket.current = null;
  }, []);

  const ended = useCallback(() => {
    teardown();
    writeLiveSession(null);
    setCodeOpen(false);
    setPointer(null);
    setPhase((p) => (p.kind === 'idle' ? p : { kind: 'ended' }));
  }, [teardown]);

  const onFrame = useCallback(
    (frame: CobrowseServerFrame) => {
      switch (frame.type) {
        case 'state':
          if (frame.status === 'ended') ended();
          else if (frame.status === 'active') setPhase({ kind: 'active', agentName: frame.agentName ?? '' });
          else setPhase((p) => (p.kind === 'waiting' ? p : { kind: 'waiting', code: null, expiresAt: null }));
          return;
        case 'snapshot':
          // A viewer joined: the first one starts the recorder (its chunk loads now), the next ones get a fresh full snapshot.
          if (recorder.current) {
            recorder.current.snapshot();
            return;
          }
          if (recorderLoading.current) return;
          recorderLoading.current = true;
          void import('./recorder').then(({ startRecorder }) => {
            if (!recorderLoading.current || !pacer.current) return; // ended meanwhile
            const send = pacer.current.send;
            recorder.current = startRecorder((data) => send(data));
          });
          return;
        case 'pointer': {
          const data = frame.data as { x?: unknown; y?: unknown } | null;
          if (data && typeof data.x === 'number' && typeof data.y === 'number') setPointer({ x: data.x, y: data.y, seq: frame.seq });
          return;
        }
        default:
      }
    },
    [ended],
  );

  const connect = useCallback(() => {
    if (socket.current) return;
    const sock = openChatSocket<CobrowseServerFrame, CobrowseClientFrame>({
      url: () => cobrowseSocketUrl(),
      onFrame,
      onStatus: (status) => {
        // 4404 (no live session) or 1000 after the ended state: nothing more comes.
        if (status === 'closed' && socket.current === sock) ended();
      },
    });
    socket.current = sock;
    pacer.current = createPacer((data) => sock.send({ type: 'event', data }));
  }, [onFrame, ended]);

  // A reload or a new page of this tab: the server says whether the remembered session is still live.
  useEffect(() => {
    if (readLiveSession() === null) return;
    let current = true;
    void api.current().then((answer) => {
      if (!current) return;
      setResuming(false);
      if (!answer.ok || (answer.data.status !== 'waiting' && answer.data.status !== 'active')) {
        writeLiveSession(null);
        return;
      }
      setPhase(
        answer.data.status === 'active'
          ? { kind: 'active', agentName: answer.data.agentName ?? '' }
          : { kind: 'waiting', code: null, expiresAt: answer.data.expiresAt ?? null },
      );
      connect();
    });
    return () => {
      current = false;
    };
  }, [api, connect]);

  useEffect(() => teardown, [teardown]);

  // A request from the footer or the chat opens the consent dialog (one session at a time).
  useEffect(() => {
    if (!request) return;
    onRequestHandled();
    if (live) {
      if (phase.kind === 'waiting' && phase.code) setCodeOpen(true);
      return;
    }
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    openerHome.current = opener.current?.closest('[role="dialog"]') ?? null;
    setError(null);
    setConsent(request);
  }, [request, onRequestHandled, live, phase]);

  // Back to what opened the dialog; when the answer took that away (the
  // chat's Review button goes once the request is answered), to the first
  // control of the dialog it was in (the chat), else to the page's heading:
  // never to <body> (issue 32).
  const restoreFocus = useCallback(() => {
    const target = opener.current;
    opener.current = null;
    if (target?.isConnected) return target.focus();
    const home = openerHome.current;
    openerHome.current = null;
    const inHome = home?.isConnected ? home.querySelector<HTMLElement>('textarea, input:not([type="hidden"]), button') : null;
    (inHome ?? document.querySelector<HTMLElement>('main h1[tabindex="-1"], main h1'))?.focus();
  }, []);

  const decline = useCallback(() => {
    const start = consent;
    setConsent(null);
    restoreFocus();
    // Footer: nothing is called. Chat: the agent's request gets its answer.
    if (start?.origin === 'chat') void api.consent(start.sessionId, false);
  }, [consent, api, restoreFocus]);

  const accept = useCallback(async () => {
    if (!consent || busy) return;
    setBusy(true);
    setError(null);
    const answer = consent.origin === 'chat' ? await api.consent(consent.sessionId, true) : await api.start();
    setBusy(false);
    if (!answer.ok) {
      setError(errorKeys[answer.errorCode] ?? 'cobrowse.error.other');
      return;
    }
    const session = answer.data;
    writeLiveSession(session.id);
    setConsent(null);
    if (session.status === 'active') {
      setPhase({ kind: 'active', agentName: session.agentName ?? '' });
      restoreFocus();
    } else {
      setPhase({ kind: 'waiting', code: session.code ?? null, expiresAt: session.expiresAt ?? null });
      setCodeOpen(true);
    }
    connect();
  }, [consent, busy, api, connect, restoreFocus]);

  const stop = useCallback(async () => {
    const answer = await api.end();
    // The socket's ended state does the rest; when the call failed, the end frame says it over the socket.
    if (!answer.ok) socket.current?.send({ type: 'end' });
  }, [api]);

  const closeCode = useCallback(() => {
    setCodeOpen(false);
    restoreFocus();
  }, [restoreFocus]);

  const agent = phase.kind === 'active' ? phase.agentName || t('cobrowse.agent') : '';
  return (
    <>
      <Banner
        phase={phase}
        reserved={resuming}
        agent={agent}
        onStop={() => void stop()}
        onShowCode={() => {
          opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
          setCodeOpen(true);
        }}
        onDismiss={() => setPhase({ kind: 'idle' })}
      />
      {consent ? (
        <ConsentDialog
          fromChat={consent.origin === 'chat'}
          busy={busy}
          error={error}
          onAccept={() => void accept()}
          onDecline={decline}
        />
      ) : null}
      {codeOpen && (phase.kind === 'waiting' || phase.kind === 'active') ? (
        <CodeDialog phase={phase} agent={agent} onClose={closeCode} onStop={() => void stop()} />
      ) : null}
      {live && pointer ? <PointerDot pointer={pointer} /> : null}
    </>
  );
}
