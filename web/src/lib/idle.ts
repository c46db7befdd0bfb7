import { startTransition, useEffect, useState } from 'react';

/**
 * "After the first screen": what the first screen does not need (analytics, the consent and
 * promotion modals, the reviews widget, the dealer map, forms, captcha) waits until the browser
 * is idle after the page has rendered and hydrated, or until the shopper first interacts,
 * whichever comes first. Hydration and the LCP image then get the main thread and the network.
 */

/** Events that count as the shopper's first interaction. */
export const INTERACTION_EVENTS = ['pointerdown', 'keydown', 'touchstart', 'scroll'] as const;

/** requestIdleCallback's deadline: on a main thread that never idles, run anyway after this long. */
export const IDLE_TIMEOUT_MS = 2_000;

/** Where requestIdleCallback is missing (Safari), a short timer stands in: armed in the effects of
 * the first render, it fires after hydration's task, once the browser has painted or nearly. */
export const NO_IDLE_CALLBACK_DELAY_MS = 50;

/** The parts of `window` the trigger uses, injectable for tests. */
export interface IdleHost {
  requestIdleCallback?: (callback: () => void, options: { timeout: number }) => number;
  cancelIdleCallback?: (handle: number) => void;
  setTimeout: (callback: () => void, ms: number) => number;
  clearTimeout: (handle: number) => void;
  addEventListener: (type: string, listener: () => void, options: AddEventListenerOptions) => void;
  removeEventListener: (type: string, listener: () => void, options: EventListenerOptions) => void;
}

/**
 * Calls `onDone` once: when the host is idle (or the idle deadline passes), or on the first
 * interaction. Returns a function that disarms it without calling.
 */
export function armIdleTrigger(host: IdleHost, onDone: () => void): () => void {
  let armed = true;
  const listenerOptions = { capture: true, passive: true } as const;
  const disarm = () => {
    if (!armed) return;
    armed = false;
    if (idleHandle !== undefined) host.cancelIdleCallback?.(idleHandle);
    if (timerHandle !== undefined) host.clearTimeout(timerHandle);
    for (const type of INTERACTION_EVENTS) host.removeEventListener(type, fire, listenerOptions);
  };
  const fire = () => {
    if (!armed) return;
    disarm();
    onDone();
  };
  let idleHandle: number | undefined;
  let timerHandle: number | undefined;
  if (typeof host.requestIdleCallback === 'function') {
    idleHandle = host.requestIdleCallback(fire, { timeout: IDLE_TIMEOUT_MS });
  } else {
    timerHandle = host.setTimeout(fire, NO_IDLE_CALLBACK_DELAY_MS);
  }
  for (const type of INTERACTION_EVENTS) host.addEventListener(type, fire, listenerOptions);
  return disarm;
}

// One trigger per page load: once the first screen is done, it stays done (client-side
// navigations render at once what they need).
let done = false;
let disarm: (() => void) | null = null;
/** What waits for the first screen, then for its turn. */
const listeners = new Set<() => void>();
let draining = false;

/** How long a waiting task's turn may wait for an idle period while the shopper keeps the page busy. */
export const TURN_TIMEOUT_MS = 1_000;

function finish() {
  done = true;
  disarm = null;
  drain();
}

/**
 * One waiting task per idle period, in the order they asked: each renders, commits and runs its
 * effects (a modal's `showModal`, a widget's script) in tasks of its own. Run together, they made
 * the longest task a phone saw after hydration.
 */
function drain() {
  const [next] = listeners;
  draining = next !== undefined;
  if (next === undefined) return;
  listeners.delete(next);
  next();
  const host: IdleHost = window;
  if (typeof host.requestIdleCallback === 'function') {
    host.requestIdleCallback(drain, { timeout: TURN_TIMEOUT_MS });
  } else {
    host.setTimeout(drain, NO_IDLE_CALLBACK_DELAY_MS);
  }
}

function arm() {
  if (done || disarm) return;
  disarm = armIdleTrigger(window, finish);
}

/** True once the first screen is done (idle or interaction). */
export function isFirstScreenDone(): boolean {
  return done;
}

/**
 * Runs `task` once the first screen is done and its turn has come (at once if everything that
 * waited has run). Returns a cancel function, for effects' clean-up.
 */
export function afterFirstScreen(task: () => void): () => void {
  if (done && !draining) {
    task();
    return () => undefined;
  }
  listeners.add(task);
  arm();
  return () => {
    listeners.delete(task);
  };
}

/**
 * False during the first screen (and on the server, and while hydrating, so the markup matches),
 * true once the browser has been idle or the shopper has interacted. The change is a transition:
 * a store subscription (`useSyncExternalStore`) would re-render the whole frame in one blocking
 * task, the longest a phone saw after hydration; a transition yields to the browser as it goes.
 */
export function useAfterFirstScreen(): boolean {
  const [later, setLater] = useState(isFirstScreenDone);
  useEffect(() => {
    if (later) return;
    return afterFirstScreen(() => {
      startTransition(() => {
        setLater(true);
      });
    });
  }, [later]);
  return later;
}
