// The JavaScript a document loads before it hydrates, read from Vite's build manifest
// (dist/.vite/manifest.json): the HTML entry, the chunks it imports statically (Vite writes them
// as <link rel="modulepreload">), and the route's lazily loaded chunk with its own static imports.
// Dynamic imports are left out: they load later, when the code that asks for them runs.

/**
 * The files (paths under dist) of `keys` and everything they import statically, each once,
 * in the order they are first reached.
 * @param {Record<string, { file: string, imports?: string[] }>} manifest
 * @param {string[]} keys manifest keys (source paths such as `index.html`)
 * @returns {string[]}
 */
export function staticClosure(manifest, keys) {
  const seen = new Set();
  const files = [];
  const visit = (key) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`The build manifest has no entry for ${key}`);
    seen.add(key);
    files.push(chunk.file);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const key of keys) visit(key);
  return files;
}

/**
 * The manifest key of the build's one entry (`index.html`).
 * @param {Record<string, { isEntry?: boolean }>} manifest
 * @returns {string}
 */
function entryKey(manifest) {
  const entries = Object.keys(manifest).filter((key) => manifest[key].isEntry);
  if (entries.length !== 1) throw new Error(`Expected one entry in the build manifest, found ${entries.length}`);
  return String(entries[0]);
}

/**
 * The JavaScript files a document of `routeModule` loads before hydration.
 * @param {Record<string, { file: string, imports?: string[], isEntry?: boolean }>} manifest
 * @param {string} routeModule the route's source path, e.g. `src/app/routes/product.tsx`
 */
export function prehydrationFiles(manifest, routeModule) {
  const entry = entryKey(manifest);
  return staticClosure(manifest, [entry, routeModule]).filter((file) => file.endsWith('.js'));
}

/**
 * The stylesheets a document of `routeModule` gets only with the route's chunk (or the chunks
 * that chunk imports statically), not with the entry's stylesheet that the document links.
 * @param {Record<string, { file: string, imports?: string[], css?: string[], isEntry?: boolean }>} manifest
 * @param {string} routeModule the route's source path, e.g. `src/app/routes/product.tsx`
 * @returns {string[]}
 */
export function stylesheetsOutsideEntry(manifest, routeModule) {
  const entry = entryKey(manifest);
  const cssOf = (files) =>
    Object.values(manifest)
      .filter((chunk) => files.includes(chunk.file))
      .flatMap((chunk) => chunk.css ?? []);
  const linked = new Set(cssOf(staticClosure(manifest, [entry])));
  return [...new Set(cssOf(staticClosure(manifest, [routeModule])))].filter((css) => !linked.has(css));
}

/**
 * The JavaScript each lazily loaded route adds to what the document's entry already loads: for
 * every dynamically imported module (a route, `src/app/routes/product.tsx`), its chunk and the
 * chunks it imports statically, minus the entry's own. The server render preloads a page's
 * share of it (src/ssr/route-preloads.tsx), so the browser fetches the route's chunks beside the
 * entry instead of after it, and Vite's preload helper has nothing left to insert.
 * @param {Record<string, { file: string, imports?: string[], isEntry?: boolean, isDynamicEntry?: boolean }>} manifest
 * @returns {Record<string, string[]>}
 */
export function routeChunks(manifest) {
  const entry = entryKey(manifest);
  const loaded = new Set(staticClosure(manifest, [entry]));
  /** @type {Record<string, string[]>} */
  const chunks = {};
  for (const key of Object.keys(manifest).filter((key) => manifest[key].isDynamicEntry)) {
    chunks[key] = staticClosure(manifest, [key]).filter((file) => file.endsWith('.js') && !loaded.has(file));
  }
  return chunks;
}
