import { startTransition, useEffect, useState } from 'react';

/** The attribute set on `<html>` once the app has taken the page over (`app/hydration-mark.tsx`). */
export const HYDRATED_ATTRIBUTE = 'data-hydrated';

/** Whether the app has taken the page over: never on the server, not yet while it hydrates. */
function appHydrated(): boolean {
  return typeof document !== 'undefined' && document.documentElement.hasAttribute(HYDRATED_ATTRIBUTE);
}

/**
 * False on the server and while hydrating (so the markup matches), true afterwards; at once in
 * what renders after the app has hydrated (a client-side navigation). For what must not look
 * usable before its code is there: server markup that hydration leaves to a lazy chunk still
 * loading is inert, and a tap on it is lost.
 *
 * The change after hydration is a transition: it renders in its own time-sliced tasks, not
 * synchronously inside the hydration's effects (a store subscription would), and a lazy chunk it
 * waits for keeps the server's markup on screen until it is there.
 */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(appHydrated);
  useEffect(() => {
    if (hydrated) return;
    startTransition(() => {
      setHydrated(true);
    });
  }, [hydrated]);
  return hydrated;
}
