import { waitFor } from '@testing-library/react';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { FakeSocket } from '@/lib/chat/fake-socket';

/**
 * The hooks of a file whose tests talk over WebSockets: before each test,
 * WebSocket is FakeSocket (none left from the test before) and the storage
 * the feature keeps its live state in is emptied; after it, the real globals.
 */
export function fakeSockets(storage: Storage) {
  beforeEach(() => {
    FakeSocket.all = [];
    vi.stubGlobal('WebSocket', FakeSocket);
    storage.clear();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
  });
}

/** The one socket left open (StrictMode mounts the conversation twice: the first one is closed). */
export async function liveSocket(): Promise<FakeSocket> {
  await waitFor(() => expect(FakeSocket.all.filter((s) => s.closedWith === undefined)).toHaveLength(1));
  return FakeSocket.all.find((s) => s.closedWith === undefined)!;
}
