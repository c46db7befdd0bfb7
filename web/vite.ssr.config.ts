import react from '@vitejs/plugin-react';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { routeChunks, type Manifest } from './scripts/lib/prehydration.js';
import { reactRouterProduction } from './vite.react-router';

const fromRoot = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The client build's chunks per lazily loaded route (`npm run build` builds the client first):
 * the server render names a page's chunks in its document, so the browser loads them at once.
 */
function clientRouteChunks(): Record<string, string[]> {
  const path = fromRoot('dist/.vite/manifest.json');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as Manifest;
  } catch (error) {
    throw new Error(`The server render is built after the client build, whose manifest ${path} could not be read`, {
      cause: error,
    });
  }
  return routeChunks(manifest);
}

/**
 * The server renderer: `src/entry-server.tsx` as ONE classic script with everything inlined
 * (lazy routes included), for the BFF's embedded QuickJS engine, which has no module loader,
 * no Node and no browser. It goes to `dist/ssr/render.js`, beside the client build it renders
 * for (`npm run build` runs this after the client build; the BFF loads it at start).
 */
export default defineConfig({
  plugins: [react()],
  define: {
    'process.env.NODE_ENV': JSON.stringify('production'),
    __ROUTE_CHUNKS__: JSON.stringify(clientRouteChunks()),
  },
  resolve: {
    alias: [
      // React's legacy server build: `renderToString`, and nothing of the streaming renderer
      // (which needs streams and MessageChannel that the engine lacks)
      {
        find: /^react-dom\/server$/,
        replacement: fromRoot('node_modules/react-dom/cjs/react-dom-server-legacy.browser.production.js'),
      },
      ...reactRouterProduction,
    ],
  },
  ssr: {
    noExternal: true,
    target: 'webworker',
    resolve: { conditions: ['browser', 'import', 'module', 'default'] },
  },
  build: {
    ssr: 'src/entry-server.tsx',
    outDir: 'dist/ssr',
    emptyOutDir: false,
    copyPublicDir: false,
    minify: true,
    target: 'es2020',
    rolldownOptions: {
      output: {
        format: 'iife',
        entryFileNames: 'render.js',
        codeSplitting: false,
      },
    },
  },
});
