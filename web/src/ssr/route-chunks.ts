import type { ReactNode } from 'react';
import { preload } from 'react-dom';
import type { RouteHandle } from '../app/route-module';

/** The client build's chunks per route module, written into the server bundle at build time. */
declare const __ROUTE_CHUNKS__: Record<string, string[]> | undefined;

const CHUNKS: Record<string, string[]> = typeof __ROUTE_CHUNKS__ === 'undefined' ? {} : __ROUTE_CHUNKS__;

/** The chunks (`assets/…js`) of the matched routes' modules, each once, in match order. */
export function chunksOf(matches: readonly { route: { handle?: unknown } }[]): string[] {
  const files = matches.flatMap((match) => {
    const handle = match.route.handle as Partial<RouteHandle> | undefined;
    return handle?.module ? (CHUNKS[handle.module] ?? []) : [];
  });
  return [...new Set(files)];
}

/**
 * Preloads of a document's route chunks, which React writes into the rendered markup. Without
 * them the browser learns of the route's chunks only once the entry has run and the router asked
 * for them: one more round trip before hydration, and Vite's preload helper inserting a `<link>`
 * per chunk while the page is busy. At low priority: the stylesheet and the largest image come
 * first, since the page is painted before any script runs. A wrapper with one child, not a
 * sibling: `useId`'s ids follow the tree's shape, which must be the browser's.
 */
export function RoutePreloads({ files, children }: { files: readonly string[]; children: ReactNode }) {
  for (const file of files) preload(`/${file}`, { as: 'script', crossOrigin: '', fetchPriority: 'low' });
  return children;
}
