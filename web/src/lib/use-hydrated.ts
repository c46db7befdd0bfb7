import { useSyncExternalStore } from 'react';

const nothingToSubscribe = () => () => undefined;
const onTheClient = () => true;
const onTheServer = () => false;

/**
 * False on the server and while hydrating (so the markup matches), true from the render right
 * after. For what must not look usable before its code is there: server markup that hydration
 * leaves to a lazy chunk still loading is inert, and a tap on it is lost.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(nothingToSubscribe, onTheClient, onTheServer);
}
