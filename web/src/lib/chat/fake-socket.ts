// Tests only: a WebSocket the test drives (opens, receives and closes when told).
import type { WebSocketLike } from './socket';

/** A WebSocket the test drives: it opens, receives and closes when told. */
export class FakeSocket implements WebSocketLike {
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: unknown[] = [];
  closedWith: number | undefined;
  onopen: ((ev: Event) => void) | null = null;
  onmessage: ((ev: MessageEvent) => void) | null = null;
  onclose: ((ev: CloseEvent) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    if (this.readyState !== 1) throw new Error('send on a socket not open');
    this.sent.push(JSON.parse(data));
  }
  close(code?: number) {
    this.closedWith = code ?? 1005;
    this.readyState = 3;
  }
  // The server's side.
  open() {
    this.readyState = 1;
    this.onopen?.(new Event('open'));
  }
  receive(frame: unknown) {
    this.onmessage?.(new MessageEvent('message', { data: typeof frame === 'string' ? frame : JSON.stringify(frame) }));
  }
  serverClose(code: number) {
    this.readyState = 3;
    this.onclose?.(new CloseEvent('close', { code }));
  }
}
