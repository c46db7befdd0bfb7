import { fileURLToPath } from 'node:url';
import type { Alias } from 'vite';

const fromRoot = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * React Router 7's package exports name only its development build, in every condition
 * (remix-run/react-router#14102; React Router 8 ships both): a production build of ours would
 * carry its development warnings and checks. The app's builds (the browser's and the server
 * render's) take its production files instead, which have the same API and behaviour without
 * them: about 0.6 kB gzip less before hydration. Tests keep the development build (its warnings
 * are useful there).
 */
export const reactRouterProduction: Alias[] = [
  { find: /^react-router$/, replacement: fromRoot('node_modules/react-router/dist/production/index.mjs') },
  { find: /^react-router\/dom$/, replacement: fromRoot('node_modules/react-router/dist/production/dom-export.mjs') },
];
