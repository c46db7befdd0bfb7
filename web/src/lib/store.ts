import { useSyncExternalStore } from 'react';

/**
 * A tiny external store for client-only UI state (notification, flags). Server state lives in
 * the query cache, never here.
 */
export interface Store<T> {
  get: () => T;
  set: (next: T | ((previous: T) => T)) => void;
  subscribe: (listener: () => void) => () => void;
  /** Back to the initial value (tests). */
  reset: () => void;
}

const stores = new Set<Store<unknown>>();

export function createStore<T>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  const store: Store<T> = {
    get: () => value,
    set: (next) => {
      const resolved = typeof next === 'function' ? (next as (previous: T) => T)(value) : next;
      if (Object.is(resolved, value)) return;
      value = resolved;
      for (const listener of [...listeners]) listener();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    reset: () => {
      store.set(initial);
    },
  };
  stores.add(store as Store<unknown>);
  return store;
}

export function useStore<T>(store: Store<T>): T {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}

/** Resets every store created so far (test isolation). */
export function resetAllStores(): void {
  for (const store of stores) store.reset();
}
