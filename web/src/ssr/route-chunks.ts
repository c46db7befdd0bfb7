import type { RouteHandle } from '../app/route-module';

/** The client build's chunks per route module, written into the server bundle at build time. */
declare const __ROUTE_CHUNKS__: Record<string, string[]> | undefined;

const CHUNKS: Record<string, string[]> = typeof __ROUTE_CHUNKS__ === 'undefined' ? {} : __ROUTE_CHUNKS__;

/**
 * The chunks (`assets/…js`) of the matched routes' modules, each once, in match order. The
 * document lists them (`#route-chunks`) and the boot script preloads them once the first screen
 * has painted, beside the app's own: without them the browser would learn of a route's chunks
 * only after the app had run and its router asked for them, one round trip more before
 * hydration.
 */
export function chunksOf(matches: readonly { route: { handle?: unknown } }[]): string[] {
  const files = matches.flatMap((match) => {
    const handle = match.route.handle as RouteHandle | undefined;
    return handle?.module ? (CHUNKS[handle.module] ?? []) : [];
  });
  return [...new Set(files)];
}
