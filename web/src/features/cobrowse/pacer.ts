// The visitor socket takes 40 frames a second (burst 80; more are dropped
// with RATE_LIMITED). rrweb's events cannot be dropped (the replay needs every
// mutation), so they are paced: sent at once while the budget allows, else
// queued and sent in order as it refills.

export const EVENTS_PER_SECOND = 36;
export const BURST = 60;

export interface Pacer {
  send: (data: unknown) => void;
  stop: () => void;
}

export function createPacer(
  out: (data: unknown) => void,
  clock: { now: () => number; setTimeout: (f: () => void, ms: number) => unknown; clearTimeout: (t: unknown) => void } = {
    now: () => performance.now(),
    setTimeout: (f, ms) => setTimeout(f, ms),
    clearTimeout: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
  },
): Pacer {
  let tokens = BURST;
  let last = clock.now();
  const queue: unknown[] = [];
  let timer: unknown = null;
  let stopped = false;

  function refill() {
    const now = clock.now();
    tokens = Math.min(BURST, tokens + ((now - last) / 1000) * EVENTS_PER_SECOND);
    last = now;
  }

  function flush() {
    timer = null;
    if (stopped) return;
    refill();
    while (queue.length > 0 && tokens >= 1) {
      tokens--;
      out(queue.shift());
    }
    if (queue.length > 0) timer = clock.setTimeout(flush, Math.ceil(1000 / EVENTS_PER_SECOND));
  }

  return {
    send(data) {
      if (stopped) return;
      queue.push(data);
      if (timer === null) flush();
    },
    stop() {
      stopped = true;
      queue.length = 0;
      if (timer !== null) clock.clearTimeout(timer);
      timer = null;
    },
  };
}
