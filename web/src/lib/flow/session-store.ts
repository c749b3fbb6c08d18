import { useSyncExternalStore } from 'react';

// A value the pages share, kept as JSON in sessionStorage under its own key,
// so a reload of the tab keeps it and closing the tab forgets it (the flow
// state, the recovery progress).

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage disabled: the value lives as long as the page
  }
}

/** Stored JSON read defensively: the object it holds, or null when it is missing, malformed or not an object. */
export function storedObject(raw: string | null): Record<string, unknown> | null {
  if (!raw) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

export interface SessionStore<T> {
  /** The current value. */
  read: () => T;
  /** Stores the value and tells the pages showing it. */
  write: (next: T) => T;
  subscribe: (listener: () => void) => () => void;
}

/**
 * The value stored under `key`, read with `parse` (which gives the initial
 * value for null or anything malformed). Snapshots are memoized on the stored
 * text, so useSyncExternalStore sees the same object until the value changes
 * (also when a test or another script writes the storage directly).
 */
export function sessionStore<T>(key: string, parse: (raw: string | null) => T): SessionStore<T> {
  let memo: { raw: string | null; state: T } = { raw: null, state: parse(null) };
  let fallbackRaw: string | null = null;
  const listeners = new Set<() => void>();

  const read = (): T => {
    const store = storage();
    const raw = store ? store.getItem(key) : fallbackRaw;
    if (raw !== memo.raw) memo = { raw, state: parse(raw) };
    return memo.state;
  };

  const write = (next: T): T => {
    const raw = JSON.stringify(next);
    const store = storage();
    try {
      if (store) store.setItem(key, raw);
      else fallbackRaw = raw;
    } catch {
      fallbackRaw = raw; // quota or privacy mode: keep it for this page at least
    }
    memo = { raw: store ? store.getItem(key) : raw, state: next };
    for (const listener of listeners) listener();
    return next;
  };

  const subscribe = (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };

  return { read, write, subscribe };
}

/** The stored value, re-rendering when it changes. */
export function useSessionStore<T>(store: SessionStore<T>): T {
  return useSyncExternalStore(store.subscribe, store.read, store.read);
}
