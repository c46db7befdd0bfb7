import { useEffect, type ReactNode } from 'react';
import { HYDRATED_ATTRIBUTE } from '../lib/use-hydrated';

/**
 * Marks `<html>` once React has committed the app: a server-rendered button is visible before
 * its handler is attached, so end-to-end tests (and anything else that must know) wait for this
 * mark before they interact. A parent's effect runs after its children's, so the mark lands
 * after the whole first commit, whether it hydrated server markup or rendered into an empty root.
 */
export function HydrationMark({ children }: { children: ReactNode }) {
  useEffect(() => {
    document.documentElement.setAttribute(HYDRATED_ATTRIBUTE, 'true');
  }, []);
  return children;
}
