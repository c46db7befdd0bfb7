import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  armIdleTrigger,
  IDLE_TIMEOUT_MS,
  INTERACTION_EVENTS,
  NO_IDLE_CALLBACK_DELAY_MS,
  useAfterFirstScreen,
  type IdleHost,
} from './idle';

/** A host whose idle callbacks, timers and events the test fires by hand. */
function fakeHost({ idleCallback }: { idleCallback: boolean }) {
  const idle = new Map<number, { callback: () => void; timeout: number }>();
  const timers = new Map<number, { callback: () => void; ms: number }>();
  const events = new Map<string, Set<() => void>>();
  let next = 1;
  const host: IdleHost = {
    setTimeout: (callback, ms) => {
      timers.set(next, { callback, ms });
      return next++;
    },
    clearTimeout: (handle) => timers.delete(handle),
    addEventListener: (type, listener) => {
      const set = events.get(type) ?? new Set();
      set.add(listener);
      events.set(type, set);
    },
    removeEventListener: (type, listener) => events.get(type)?.delete(listener),
    ...(idleCallback
      ? {
          requestIdleCallback: (callback: () => void, options: { timeout: number }) => {
            idle.set(next, { callback, timeout: options.timeout });
            return next++;
          },
          cancelIdleCallback: (handle: number) => idle.delete(handle),
        }
      : {}),
  };
  const listenerCount = () => [...events.values()].reduce((sum, set) => sum + set.size, 0);
  const dispatch = (type: string) => {
    for (const listener of [...(events.get(type) ?? [])]) listener();
  };
  return { host, idle, timers, listenerCount, dispatch };
}

describe('armIdleTrigger', () => {
  it('runs once when the browser is idle, with a deadline, and then lets go of everything', () => {
    const fake = fakeHost({ idleCallback: true });
    const onDone = vi.fn();
    armIdleTrigger(fake.host, onDone);

    expect(onDone).not.toHaveBeenCalled();
    expect(fake.timers.size).toBe(0);
    expect(fake.listenerCount()).toBe(INTERACTION_EVENTS.length);
    const [request] = [...fake.idle.values()];
    expect(request?.timeout).toBe(IDLE_TIMEOUT_MS);

    request?.callback();
    expect(onDone).toHaveBeenCalledTimes(1);
    expect(fake.listenerCount()).toBe(0);
    fake.dispatch('pointerdown');
    expect(onDone).toHaveBeenCalledTimes(1);
  });

  it.each(INTERACTION_EVENTS)(
    'runs at the first %s, before the browser is idle, and cancels the idle callback',
    (type) => {
      const fake = fakeHost({ idleCallback: true });
      const onDone = vi.fn();
      armIdleTrigger(fake.host, onDone);

      fake.dispatch(type);
      expect(onDone).toHaveBeenCalledTimes(1);
      expect(fake.idle.size).toBe(0);
      expect(fake.listenerCount()).toBe(0);
    },
  );

  it('falls back to a timer where requestIdleCallback is missing', () => {
    const fake = fakeHost({ idleCallback: false });
    const onDone = vi.fn();
    armIdleTrigger(fake.host, onDone);

    const [timer] = [...fake.timers.values()];
    expect(timer?.ms).toBe(NO_IDLE_CALLBACK_DELAY_MS);
    timer?.callback();
    expect(onDone).toHaveBeenCalledTimes(1);
    expect(fake.listenerCount()).toBe(0);
  });

  it('does nothing once disarmed', () => {
    const fake = fakeHost({ idleCallback: false });
    const onDone = vi.fn();
    const disarm = armIdleTrigger(fake.host, onDone);

    disarm();
    expect(fake.timers.size).toBe(0);
    expect(fake.listenerCount()).toBe(0);
    fake.dispatch('keydown');
    expect(onDone).not.toHaveBeenCalled();
  });
});

describe('useAfterFirstScreen', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function Probe() {
    return <p>{useAfterFirstScreen() ? 'later' : 'first screen'}</p>;
  }

  it('is false for the first screen, true after the idle fallback, and stays true for later renders', () => {
    // jsdom has no requestIdleCallback: the timer fallback applies
    expect('requestIdleCallback' in window).toBe(false);
    const { unmount } = render(<Probe />);
    expect(screen.getByText('first screen')).toBeInTheDocument();

    act(() => {
      vi.advanceTimersByTime(NO_IDLE_CALLBACK_DELAY_MS);
    });
    expect(screen.getByText('later')).toBeInTheDocument();

    unmount();
    render(<Probe />);
    expect(screen.getByText('later')).toBeInTheDocument();
  });
});

describe('afterFirstScreen', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.resetModules();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs what waited one task per idle period, in order, and later tasks at once', async () => {
    const idle = await import('./idle');
    const ran: string[] = [];
    idle.afterFirstScreen(() => ran.push('consent modal'));
    const cancel = idle.afterFirstScreen(() => ran.push('cancelled'));
    idle.afterFirstScreen(() => ran.push('reviews widget'));
    cancel();
    idle.afterFirstScreen(() => ran.push('newsletter form'));
    expect(ran).toEqual([]);

    vi.advanceTimersByTime(idle.NO_IDLE_CALLBACK_DELAY_MS);
    expect(ran).toEqual(['consent modal']);
    // asked for while the others wait its turn: it goes last
    idle.afterFirstScreen(() => ran.push('captcha'));
    vi.advanceTimersByTime(idle.NO_IDLE_CALLBACK_DELAY_MS);
    expect(ran).toEqual(['consent modal', 'reviews widget']);
    vi.advanceTimersByTime(2 * idle.NO_IDLE_CALLBACK_DELAY_MS);
    expect(ran).toEqual(['consent modal', 'reviews widget', 'newsletter form', 'captcha']);

    vi.advanceTimersByTime(idle.NO_IDLE_CALLBACK_DELAY_MS);
    idle.afterFirstScreen(() => ran.push('dealer map'));
    expect(ran.at(-1)).toBe('dealer map');
  });
});
