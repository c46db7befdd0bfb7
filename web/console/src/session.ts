import { createContext, useContext } from 'react';
import type { AdminClient } from './api';

/** The signed-in operator's client (its token inside, in memory only); absent before sign-in. */
export const SessionContext = createContext<AdminClient | null>(null);

export function useAdmin(): AdminClient {
  const client = useContext(SessionContext);
  if (!client) throw new Error('useAdmin outside a signed-in console');
  return client;
}
