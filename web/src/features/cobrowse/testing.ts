// Test helpers of the co-browse tests: the real recorder, stopped after each test.
import { afterEach } from 'vitest';
import { startRecorder, type Recorder } from './recorder';

/**
 * The recorder of a block of tests: record() starts it and gives the events
 * it emits; stop() ends it early. After each test the one still running is
 * stopped and the page emptied.
 */
export function recorderUnderTest() {
  let recorder: Recorder | null = null;
  const stop = () => {
    recorder?.stop();
    recorder = null;
  };
  afterEach(() => {
    stop();
    document.body.innerHTML = '';
  });
  return {
    record(): { events: unknown[]; recorder: Recorder } {
      const events: unknown[] = [];
      recorder = startRecorder((event) => events.push(event));
      return { events, recorder };
    },
    stop,
  };
}
