import { act } from '@testing-library/react';
import { vi } from 'vitest';

/**
 * Fake timers that Testing Library knows about: it looks for Jest's fake timers to advance them
 * while it waits (user-event, findBy*, waitFor); under Vitest it needs a `jest` global pointing at
 * `vi`. Without it those waits hang on a faked setTimeout.
 */
export function installFakeTimers(options: Parameters<typeof vi.useFakeTimers>[0] = {}) {
  vi.stubGlobal('jest', { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) });
  vi.useFakeTimers(options);
}

/** Lets fake time pass, and everything it triggers (requests, renders) settle. */
export async function advance(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}
