/** The id of the document's list of its route's scripts (`bff/src/ssr/markup.rs`). */
export const ROUTE_CHUNKS_ELEMENT_ID = 'route-chunks';

/** Only the build's own scripts are ever preloaded from the list. */
const CHUNK = /^\/assets\/[\w.-]+\.js$/;

/** The scripts the server render listed for the page's routes; none when there is no list. */
export function readRouteChunks(): string[] {
  try {
    const list: unknown = JSON.parse(document.getElementById(ROUTE_CHUNKS_ELEMENT_ID)?.textContent ?? '[]');
    return Array.isArray(list)
      ? list.filter((item): item is string => typeof item === 'string' && CHUNK.test(item))
      : [];
  } catch {
    return [];
  }
}

/**
 * `<link rel="modulepreload">` for each script not linked yet: the browser fetches and compiles
 * them beside the app's own chunks, so the router finds its route's module loaded.
 */
export function preloadModules(files: readonly string[]): void {
  const linked = new Set(
    [...document.querySelectorAll('link[rel="modulepreload"]')].map((link) => link.getAttribute('href')),
  );
  for (const file of new Set(files)) {
    if (linked.has(file)) continue;
    const link = document.createElement('link');
    link.rel = 'modulepreload';
    link.crossOrigin = '';
    link.href = file;
    document.head.append(link);
  }
}
