// The JavaScript a document loads before it hydrates, read from Vite's build manifest
// (dist/.vite/manifest.json): the boot script (src/boot.ts, the document's one script), the app's
// entry it starts once the first screen has painted (index.html's, with the chunks it imports
// statically), and the route's lazily loaded chunk with its own static imports. Dynamic imports
// are left out: they load later, when the code that asks for them runs.

/** The boot script's manifest key: an entry of its own, beside index.html's. */
const BOOT = 'src/boot.ts';

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
 * The manifest key of the app's entry (`index.html`), the one besides the boot script.
 * @param {Record<string, { isEntry?: boolean }>} manifest
 * @returns {string}
 */
function entryKey(manifest) {
  const entries = Object.keys(manifest).filter((key) => manifest[key].isEntry && key !== BOOT);
  if (entries.length !== 1) throw new Error(`Expected one entry in the build manifest, found ${entries.length}`);
  return String(entries[0]);
}

/**
 * The manifest keys of what every document runs before its route: the boot script (when the
 * build has one) and the app's entry.
 * @param {Record<string, { isEntry?: boolean }>} manifest
 * @returns {string[]}
 */
export function appKeys(manifest) {
  return [...(manifest[BOOT] ? [BOOT] : []), entryKey(manifest)];
}

/**
 * The JavaScript files a document of `routeModule` loads before hydration.
 * @param {Record<string, { file: string, imports?: string[], isEntry?: boolean }>} manifest
 * @param {string} routeModule the route's source path, e.g. `src/app/routes/product.tsx`
 */
export function prehydrationFiles(manifest, routeModule) {
  return staticClosure(manifest, [...appKeys(manifest), routeModule]).filter((file) => file.endsWith('.js'));
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
 * The JavaScript each lazily loaded route adds to what every document loads (the entry and the
 * app, `appKeys`): for every dynamically imported module (a route, `src/app/routes/product.tsx`),
 * its chunk and the chunks it imports statically, minus the app's own. The server render lists a
 * page's share of it (src/ssr/route-chunks.ts) and the boot script preloads it beside the app,
 * so the browser fetches the route's chunks with the app's instead of after them.
 * @param {Record<string, { file: string, imports?: string[], isEntry?: boolean, isDynamicEntry?: boolean }>} manifest
 * @returns {Record<string, string[]>}
 */
export function routeChunks(manifest) {
  const loaded = new Set(staticClosure(manifest, appKeys(manifest)));
  /** @type {Record<string, string[]>} */
  const chunks = {};
  for (const key of Object.keys(manifest).filter((key) => manifest[key].isDynamicEntry)) {
    chunks[key] = staticClosure(manifest, [key]).filter((file) => file.endsWith('.js') && !loaded.has(file));
  }
  return chunks;
}
