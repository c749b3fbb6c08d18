import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { I18nProvider } from '@/i18n/i18n';
import { loadMessages } from '@/i18n/catalog';
import { loadSection, MessageSection } from '@/i18n/section';
import { LIVE_KEY, UNSENT_KEY } from '@/components/shell/chat-bubble';
import { onCobrowseRequest, type CobrowseStart } from '@/lib/cobrowse/start';
import { fakeServer, json } from '@/test/fake-server';
import { renderApp } from '@/test/render';
import { fakeSockets, liveSocket } from '@/test/sockets';
import { belair, siteConfig } from '@/test/site-fixture';
import type { ChatApi, ChatConfig } from './api';
import { roadblockOf, visitorSocketUrl } from './api';
import { Transcript } from './transcript';
import { EndPanel } from './views';
import type { Line } from './conversation';
import { fullText } from '@/test/text';


function chatConfig(chat: Partial<ChatConfig['chat']> = {}): ChatConfig {
  return {
    propertySources: [{ name: 'guichet', source: { salesforce: {} } }],
    chat: {
      open: false,
      reason: 'closed',
      nextOpen: '2026-11-30T08:00:00-05:00',
      timeZone: 'America/Toronto',
      phone: '1 833-000-0102',
      chatbot: false,
      conversation: null,
      // Saturday 28 November 2026, 18:00 in Toronto: Monday is two days away.
      now: '2026-11-28T18:00:00-05:00',
      ...chat,
    },
  };
}

// The server's Date header is the real clock, not GUICHET_DEV_NOW's: the widget reads chat.now.
const saturday = { Date: 'Sun, 29 Nov 2026 15:00:00 GMT' };

fakeSockets(window.localStorage);

async function openWidget(language: 'en' | 'fr' = 'en', url = '/not-found') {
  await renderApp(siteConfig({ brand: belair, province: language === 'fr' ? 'qc' : 'on', language }), url);
  const bubble = screen.getByRole('button', { name: language === 'fr' ? 'Clavarder avec nous' : 'Chat with us' });
  // Awaited: the widget's chunk and texts suspend while they load.
  await act(async () => {
    fireEvent.click(bubble);
  });
  await waitFor(() => expect(document.querySelector('[role=dialog] h2')?.textContent).toBe(language === 'fr' ? 'Clavarder avec nous' : 'Chat with us'));
  const dialog = await screen.findByRole('dialog', { name: language === 'fr' ? 'Clavarder avec nous' : 'Chat with us' });
  return { bubble, dialog };
}

describe('the bubble', () => {
  it('loads nothing until pressed, then opens the dialog with the focus in it', async () => {
    const calls = fakeServer({ 'GET /api/v1/salesforceConfig': () => json(200, chatConfig(), saturday) });
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }));
    expect(calls.filter((c) => c.url.includes('chat') || c.url.includes('salesforce'))).toEqual([]);
    expect(screen.queryByRole('dialog')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Chat with us' }));
    const dialog = await screen.findByRole('dialog', { name: 'Chat with us' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    await waitFor(() => expect(dialog.contains(document.activeElement)).toBe(true));
    const config = calls.find((c) => c.url === '/api/v1/salesforceConfig');
    expect(config?.headers).toMatchObject({ province: 'ON', language: 'en', 'X-API-KEY': 'belair-test-key' });
  });

  it('is not shown in webview mode', async () => {
    fakeServer({});
    await renderApp(siteConfig({ webview: true }));
    expect(screen.queryByRole('button', { name: 'Chat with us' })).toBeNull();
  });
});

describe('closed', () => {
  it('says when chat reopens in English, with the phone number and the message form', async () => {
    const calls = fakeServer({
      'GET /api/v1/salesforceConfig': () => json(200, chatConfig(), saturday),
      'POST /api/v1/chat/offline': () => json(201, { id: 'c1', status: 'waiting', queuePosition: null, agentName: null, lastSeq: 1 }),
    });
    const { dialog } = await openWidget('en', '/forgot');
    await within(dialog).findByText("We're back Monday at 8 a.m.");
    expect(within(dialog).getByRole('link', { name: '1 833-000-0102' }).getAttribute('href')).toBe('tel:+18330000102');
    fireEvent.change(within(dialog).getByLabelText('Your name'), { target: { value: ' Ana ' } });
    fireEvent.change(within(dialog).getByLabelText('Email address'), { target: { value: 'ana@example.com' } });
    fireEvent.change(within(dialog).getByLabelText('Your question'), { target: { value: 'Where is my pink card?' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send message' }));
    await within(dialog).findByText(fullText(/Thank you, Ana\. Your message is with our agents; we'll answer you by email at ana@example\.com\./));
    const post = calls.find((c) => c.method === 'POST');
    expect(post).toMatchObject({ url: '/api/v1/chat/offline', body: { name: 'Ana', email: 'ana@example.com', question: 'Where is my pink card?', page: '/forgot' } });
  });

  it('in French: the weekday and the time as French writes them', async () => {
    fakeServer({ 'GET /api/v1/salesforceConfig': () => json(200, chatConfig({ reason: 'no-agent', nextOpen: '2026-11-30T08:30:00-03:30', timeZone: 'America/St_Johns' }), saturday) });
    const { dialog } = await openWidget('fr');
    await within(dialog).findByText('De retour lundi à 8 h 30');
    expect(within(dialog).getByRole('button', { name: 'Envoyer le message' })).toBeTruthy();
  });

  it('the message form checks its fields before sending', async () => {
    const calls = fakeServer({ 'GET /api/v1/salesforceConfig': () => json(200, chatConfig(), saturday) });
    const { dialog } = await openWidget();
    fireEvent.change(await within(dialog).findByLabelText('Email address'), { target: { value: 'not-an-email' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send message' }));
    expect(await within(dialog).findByText('Enter your name.')).toBeTruthy();
    expect(within(dialog).getByText('Enter a valid email address, such as name@example.com.')).toBeTruthy();
    expect(within(dialog).getByText('Enter your question.')).toBeTruthy();
    expect(document.activeElement).toBe(within(dialog).getByLabelText('Your name'));
    expect(within(dialog).getByLabelText('Email address').getAttribute('aria-invalid')).toBe('true');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });
});

describe('pre-chat', () => {
  it('asks the name and a topic, then starts with the page and the roadblock attached', async () => {
    const calls = fakeServer({
      'GET /api/v1/salesforceConfig': () => json(200, chatConfig({ open: true, reason: 'open', nextOpen: null }), saturday),
      'POST /api/v1/chat/conversations': () => json(201, { id: 'c1', status: 'waiting', queuePosition: 2, agentName: null, lastSeq: 0 }),
    });
    const { dialog } = await openWidget();
    fireEvent.click(await within(dialog).findByRole('button', { name: 'Start chat' }));
    expect(await within(dialog).findByText('Enter your name.')).toBeTruthy();
    expect(within(dialog).getByText('Choose a topic.')).toBeTruthy();
    expect(document.activeElement).toBe(within(dialog).getByLabelText('Your name'));
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);

    fireEvent.change(within(dialog).getByLabelText('Your name'), { target: { value: 'Ana' } });
    fireEvent.change(within(dialog).getByLabelText('Topic'), { target: { value: 'password' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Start chat' }));
    const sock = await liveSocket();
    // The pressed button is gone: the focus stays in the dialog (issue 32).
    await waitFor(() => expect(dialog.contains(document.activeElement)).toBe(true));
    expect(calls.find((c) => c.method === 'POST')).toMatchObject({ url: '/api/v1/chat/conversations', body: { name: 'Ana', topic: 'password', page: '/not-found' } });
    expect(sock.url).toBe('ws://localhost:3000/api/v1/chat/socket?after=0');
    expect(window.localStorage.getItem(LIVE_KEY)).toBe('1');
  });

  it('in opening hours with nobody free: says so (not "closed") and offers the message form', async () => {
    fakeServer({
      'GET /api/v1/salesforceConfig': () => json(200, chatConfig({ open: true, reason: 'open', nextOpen: null }), saturday),
      'POST /api/v1/chat/conversations': () => json(409, { errorCode: 'CHAT_NO_AGENT' }),
    });
    const { dialog } = await openWidget();
    fireEvent.change(await within(dialog).findByLabelText('Your name'), { target: { value: 'Ana' } });
    fireEvent.change(within(dialog).getByLabelText('Topic'), { target: { value: 'password' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Start chat' }));
    expect(await within(dialog).findByText(/Nobody is free to chat right now/)).toBeTruthy();
    expect(within(dialog).queryByText(/Chat has just closed/)).toBeNull();
  });

  it('the roadblock is the route under /roadblock (the group root is the technical one)', () => {
    expect(roadblockOf('/roadblock/token-expired')).toBe('token-expired');
    expect(roadblockOf('/roadblock')).toBe('technical');
    expect(roadblockOf('/forgot')).toBeUndefined();
    expect(roadblockOf('/roadblocks')).toBeUndefined();
    expect(visitorSocketUrl(7, { protocol: 'https:', host: 'belair.example' })).toBe('wss://belair.example/api/v1/chat/socket?after=7');
  });
});

describe('the conversation', () => {
  async function resumed() {
    const calls = fakeServer({
      'GET /api/v1/salesforceConfig': () => json(200, chatConfig({ open: true, reason: 'open', nextOpen: null }), saturday),
      'GET /api/v1/chat/conversation': () => json(200, { id: 'c1', status: 'active', queuePosition: null, agentName: 'Marie', lastSeq: 2 }),
      'POST /api/v1/chat/conversation/end': () => json(200, {}),
    });
    const opened = await openWidget();
    const sock = await liveSocket();
    act(() => sock.open());
    return { ...opened, sock, calls };
  }

  it('after a reload: replays, sends with a clientId shown as sending until its own seq comes back, read receipts, typing', async () => {
    const { dialog, sock } = await resumed();
    act(() => {
      sock.receive({ type: 'state', status: 'active', queuePosition: null, agentName: 'Marie' });
      sock.receive({ type: 'message', seq: 1, sender: 'system', body: '', at: '2026-11-28T23:00:00Z', system: { key: 'agentJoined', name: 'Marie' } });
      sock.receive({ type: 'message', seq: 2, sender: 'agent', agentName: 'Marie', body: 'Hello Ana', at: '2026-11-28T23:01:00Z' });
    });
    const log = within(dialog).getByRole('log');
    expect(log.getAttribute('aria-live')).toBe('polite');
    expect(within(log).getByText('Marie joined the chat.')).toBeTruthy();
    expect(within(log).getByText('Hello Ana')).toBeTruthy();
    expect(within(log).getByText('6:01 p.m.')).toBeTruthy();
    // Shown, so read up to 2.
    await waitFor(() => expect(sock.sent).toContainEqual({ type: 'read', seq: 2 }));

    const composer = within(dialog).getByLabelText('Your message');
    fireEvent.change(composer, { target: { value: 'My password' } });
    expect(sock.sent).toContainEqual({ type: 'typing', on: true });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send' }));
    const message = sock.sent.find((f) => (f as { type: string }).type === 'message') as { clientId: string; body: string };
    expect(message.body).toBe('My password');
    expect(within(log).getByText('Sending…')).toBeTruthy();
    act(() => sock.receive({ type: 'message', seq: 3, sender: 'visitor', body: 'My password', clientId: message.clientId, at: '2026-11-28T23:02:00Z' }));
    expect(within(log).queryByText('Sending…')).toBeNull();
    expect(within(log).getAllByText('My password')).toHaveLength(1);
    act(() => sock.receive({ type: 'typing', on: true }));
    expect(within(dialog).getByText('Marie is typing…')).toBeTruthy();
    act(() => sock.receive({ type: 'read', seq: 3 }));
    expect(within(log).getByText('Read')).toBeTruthy();

    act(() => sock.serverClose(1006));
    expect(within(dialog).getByText('Reconnecting…')).toBeTruthy();
  });

  it('closing keeps it going and the bubble counts what arrives; ending asks first', async () => {
    const { dialog, sock, bubble, calls } = await resumed();
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(dialog.hidden).toBe(true);
    expect(document.activeElement).toBe(bubble);
    act(() => sock.receive({ type: 'message', seq: 1, sender: 'agent', agentName: 'Marie', body: 'Still there?', at: '2026-11-28T23:01:00Z' }));
    expect(within(bubble).getByText('1 new messages')).toBeTruthy();
    fireEvent.click(bubble);
    expect(dialog.hidden).toBe(false);
    await waitFor(() => expect(within(bubble).queryByText('1 new messages')).toBeNull());

    fireEvent.click(within(dialog).getByRole('button', { name: 'End chat' }));
    expect(calls.some((c) => c.url.endsWith('/end'))).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Yes, end it' }));
    await within(dialog).findByText('This chat has ended.');
    expect(calls.some((c) => c.method === 'POST' && c.url === '/api/v1/chat/conversation/end')).toBe(true);
    expect(within(dialog).getByRole('radiogroup', { name: 'How was your chat?' }) ?? null).toBeTruthy();
    // The bubble forgets the live conversation in the effect that follows the
    // ended render, which a busy vitest worker may not have run yet.
    await waitFor(() => expect(window.localStorage.getItem(LIVE_KEY)).toBeNull());
  });

  it('keeps Tab and Shift+Tab inside the dialog', async () => {
    const { dialog } = await resumed();
    const focusables = [...dialog.querySelectorAll<HTMLElement>('button, textarea, [tabindex="0"]')];
    const first = focusables[0]!;
    const last = focusables.at(-1)!;
    last.focus();
    fireEvent.keyDown(last, { key: 'Tab' });
    expect(document.activeElement).toBe(first);
    fireEvent.keyDown(first, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(last);
    // A focus lost to the page comes back in; Escape from there closes too.
    (document.activeElement as HTMLElement).blur();
    fireEvent.keyDown(document.body, { key: 'Tab' });
    expect(document.activeElement).toBe(first);
    (document.activeElement as HTMLElement).blur();
    fireEvent.keyDown(document.body, { key: 'Escape' });
    expect(dialog.hidden).toBe(true);
  });
});

describe('messages typed offline', () => {
  function server() {
    return fakeServer({
      'GET /api/v1/salesforceConfig': () => json(200, chatConfig({ open: true, reason: 'open', nextOpen: null }), saturday),
      'GET /api/v1/chat/conversation': () => json(200, { id: 'c1', status: 'active', queuePosition: null, agentName: 'Marie', lastSeq: 2 }),
    });
  }

  /**
   * A page load with `unsent` waiting in storage: the bubble, not pressed, loads the widget (closed) to send
   * what waits; returns its socket, opened.
   */
  async function reloadWithUnsent(unsent: { conversationId: string; messages: { clientId: string; body: string }[] }) {
    server();
    window.localStorage.setItem(UNSENT_KEY, JSON.stringify(unsent));
    await renderApp(siteConfig({ brand: belair, province: 'on', language: 'en' }), '/not-found');
    const sock = await liveSocket();
    act(() => sock.open());
    return sock;
  }

  it('are kept in storage until the server acknowledges them', async () => {
    server();
    const { dialog } = await openWidget();
    const sock = await liveSocket();
    // Offline: the socket never opened.
    fireEvent.change(within(dialog).getByLabelText('Your message'), { target: { value: 'Typed on the train' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(window.localStorage.getItem(UNSENT_KEY)).toContain('Typed on the train'));
    const stored = JSON.parse(window.localStorage.getItem(UNSENT_KEY)!) as { conversationId: string; messages: { clientId: string }[] };
    expect(stored.conversationId).toBe('c1');
    act(() => sock.open());
    const clientId = stored.messages[0]!.clientId;
    expect(sock.sent).toContainEqual({ type: 'message', clientId, body: 'Typed on the train' });
    act(() => sock.receive({ type: 'message', seq: 3, sender: 'visitor', body: 'Typed on the train', clientId, at: '2026-11-28T23:02:00Z' }));
    await waitFor(() => expect(window.localStorage.getItem(UNSENT_KEY)).toBeNull());
  });

  it('after a reload the widget loads by itself and sends them once, with their clientId', async () => {
    const sock = await reloadWithUnsent({ conversationId: 'c1', messages: [{ clientId: 'k-1', body: 'Are you there?' }] });
    expect(sock.sent.filter((f) => (f as { type: string }).type === 'message')).toEqual([{ type: 'message', clientId: 'k-1', body: 'Are you there?' }]);
    expect(screen.getByRole('dialog', { hidden: true }).hidden).toBe(true);
    act(() => sock.receive({ type: 'message', seq: 3, sender: 'visitor', body: 'Are you there?', clientId: 'k-1', at: '2026-11-28T23:02:00Z' }));
    await waitFor(() => expect(window.localStorage.getItem(UNSENT_KEY)).toBeNull());
  });

  it("another conversation's leftovers are dropped, not sent", async () => {
    const sock = await reloadWithUnsent({ conversationId: 'old', messages: [{ clientId: 'k-0', body: 'From before' }] });
    expect(sock.sent.some((f) => (f as { type: string }).type === 'message')).toBe(false);
    expect(window.localStorage.getItem(UNSENT_KEY)).toBeNull();
  });

  it('a message the server refused is not sent again', async () => {
    server();
    const { dialog } = await openWidget();
    const sock = await liveSocket();
    act(() => sock.open());
    fireEvent.change(within(dialog).getByLabelText('Your message'), { target: { value: 'x'.repeat(10) } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send' }));
    const message = sock.sent.find((f) => (f as { type: string }).type === 'message') as { clientId: string };
    act(() => sock.receive({ type: 'error', errorCode: 'RATE_LIMITED', clientId: message.clientId }));
    await waitFor(() => expect(window.localStorage.getItem(UNSENT_KEY)).toBeNull());
  });
});

describe('the transcript', () => {
  async function renderTranscript(messages: Line[], onQuickReply = vi.fn(), quickReplies = true) {
    await loadMessages('belair', 'en');
    render(
      <I18nProvider brand="belair" language="en">
        <MessageSection name="chat" language="en">
          <Transcript messages={messages} pending={[]} timeZone="America/Toronto" language="en" readSeq={0} quickReplies={quickReplies} onQuickReply={onQuickReply} typingName={null} />
        </MessageSection>
      </I18nProvider>,
    );
    return screen.findByRole('log');
  }

  it('shows markup as text and only https links, opening apart', async () => {
    const log = await renderTranscript([
      { seq: 1, sender: 'agent', agentName: '<b>Eve</b>', body: '<img src=x onerror="alert(1)"> hi', at: '2026-11-28T23:00:00Z' },
      {
        seq: 2,
        sender: 'bot',
        body: 'ignored',
        at: '2026-11-28T23:00:00Z',
        reply: {
          text: 'See <script>alert(1)</script>',
          links: [
            { label: 'Help', url: 'https://www.belairdirect.com/help' },
            { label: 'Bad', url: 'javascript:alert(1)' },
            { label: 'Plain', url: 'http://example.com' },
            { label: 'Data', url: 'data:text/html,<b>x</b>' },
          ],
        },
      },
    ]);
    expect(log.querySelector('img, script, b')).toBeNull();
    expect(within(log).getByText('<img src=x onerror="alert(1)"> hi')).toBeTruthy();
    expect(within(log).getByText('<b>Eve</b>')).toBeTruthy();
    expect(within(log).getByText('See <script>alert(1)</script>')).toBeTruthy();
    const links = within(log).getAllByRole('link');
    expect(links).toHaveLength(1);
    expect(links[0]?.getAttribute('href')).toBe('https://www.belairdirect.com/help');
    expect(links[0]?.getAttribute('target')).toBe('_blank');
    expect(links[0]?.getAttribute('rel')).toContain('noopener');
    expect(within(log).queryByText('Bad')).toBeNull();
  });

  it('quick replies of the last bot message send their text; none once the bot is done', async () => {
    const onQuickReply = vi.fn();
    const reply = { text: 'Hello! How can I help?', quickReplies: [{ id: 'password', text: 'I forgot my password' }] };
    const log = await renderTranscript([{ seq: 1, sender: 'bot', body: '', at: '2026-11-28T23:00:00Z', reply }], onQuickReply);
    fireEvent.click(within(log).getByRole('button', { name: 'I forgot my password' }));
    expect(onQuickReply).toHaveBeenCalledWith({ id: 'password', text: 'I forgot my password' });
  });

  it('no quick replies when not with the bot', async () => {
    const reply = { text: 'Hello!', quickReplies: [{ id: 'password', text: 'I forgot my password' }] };
    const log = await renderTranscript([{ seq: 1, sender: 'bot', body: '', at: '2026-11-28T23:00:00Z', reply }], vi.fn(), false);
    expect(within(log).queryByRole('button')).toBeNull();
  });

  it('shows an agent\'s co-browse request with a button that opens the consent dialog, until it is answered', async () => {
    await loadMessages('belair', 'en');
    await loadSection('chat', 'en');
    const asked: CobrowseStart[] = [];
    const off = onCobrowseRequest((start) => asked.push(start));
    const request: Line = { seq: 4, sender: 'system', body: '', at: '2026-11-28T23:00:00Z', system: { key: 'cobrowseRequest', name: 'chat-sess' } };
    const view = (messages: Line[]) => (
      <I18nProvider brand="belair" language="en">
        <MessageSection name="chat" language="en">
          <Transcript messages={messages} pending={[]} timeZone="America/Toronto" language="en" readSeq={0} quickReplies={false} onQuickReply={() => {}} typingName={null} />
        </MessageSection>
      </I18nProvider>
    );
    const { rerender } = render(view([request]));
    const log = await screen.findByRole('log');
    expect(log.textContent).toContain("Your agent asks to see this portal's pages as you see them.");
    fireEvent.click(within(log).getByRole('button', { name: 'Review the request' }));
    expect(asked).toEqual([{ origin: 'chat', sessionId: 'chat-sess' }]);
    rerender(view([request, { seq: 5, sender: 'system', body: '', at: '2026-11-28T23:01:00Z', system: { key: 'cobrowseDeclined', name: 'Eve' } }]));
    expect(within(log).queryByRole('button', { name: 'Review the request' })).toBeNull();
    expect(log.textContent).toContain('You declined to share your screen.');
    off();
  });
});

describe('after the end', () => {
  it('the rating is a radio group of 1 to 5, sent once chosen', async () => {
    await loadMessages('belair', 'en');
    const rating = vi.fn(async () => ({ ok: true as const, data: undefined }));
    const api = { rating, transcript: vi.fn() } as unknown as ChatApi;
    render(
      <I18nProvider brand="belair" language="en">
        <MessageSection name="chat" language="en">
          <EndPanel api={api} onNewChat={() => {}} />
        </MessageSection>
      </I18nProvider>,
    );
    const group = await screen.findByRole('radiogroup', { name: 'How was your chat?' });
    expect(within(group).getAllByRole('radio')).toHaveLength(5);
    fireEvent.click(screen.getByRole('button', { name: 'Send rating' }));
    expect(await screen.findByText('Choose a rating from 1 to 5.')).toBeTruthy();
    expect(rating).not.toHaveBeenCalled();
    fireEvent.click(within(group).getByRole('radio', { name: '4 – Good' }));
    fireEvent.click(screen.getByRole('button', { name: 'Send rating' }));
    expect(await screen.findByText('Thank you for your feedback.')).toBeTruthy();
    expect(rating).toHaveBeenCalledWith(4);
  });
});
