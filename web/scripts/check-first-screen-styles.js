// Every server-rendered first screen must paint with the stylesheet its document links: the
// entry's. A stylesheet that only arrives with a route's lazily loaded chunk styles the page
// after it has painted, and the page moves (layout shift). Checked after `vite build` (npm run
// build, so `make test`) against Vite's manifest: no route below may bring CSS of its own through
// its chunk or the chunks that chunk imports statically.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stylesheetsOutsideEntry } from './lib/prehydration.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The page modules of the routes the route manifest has the BFF render on the server (`render`). */
function serverRendered(routes) {
  return routes.flatMap((route) => [
    ...(route.render !== 'shell' && route.module ? [route.module] : []),
    ...serverRendered(route.children ?? []),
  ]);
}

// The routes the BFF renders on the server (src/app/routes.json, read by bff/src/seo/page.rs),
// and two it answers with the shell whose first screens are kept to the same rule: the copy
// pages and the not-found page. The account, checkout and builder screens are rendered in the
// browser only and may load their styles with their chunks.
const routeManifest = JSON.parse(readFileSync(join(here, '..', 'src', 'app', 'routes.json'), 'utf8'));
const FIRST_SCREEN_ROUTES = [...serverRendered(routeManifest.routes), 'copy', routeManifest.notFound.module].map(
  (name) => `src/app/routes/${name}.tsx`,
);

const dist = join(here, '..', 'dist');
const manifest = JSON.parse(readFileSync(join(dist, '.vite', 'manifest.json'), 'utf8'));

let failed = false;
for (const route of FIRST_SCREEN_ROUTES) {
  const late = stylesheetsOutsideEntry(manifest, route);
  if (late.length > 0) {
    console.error(`${route} paints before its styles arrive (${late.join(', ')}): import them in src/main.tsx`);
    failed = true;
  }
}
if (failed) process.exit(1);
console.log(
  `First-screen styles: all ${FIRST_SCREEN_ROUTES.length} server-rendered routes paint with the entry's stylesheet.`,
);
