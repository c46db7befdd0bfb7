/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const fromRoot = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The document's scripts at low fetch priority. Pages are painted by the server's markup and
 * the stylesheet, and the largest image is preloaded at high priority: on a slow phone link the
 * scripts would otherwise share the bandwidth with both and hold back the first paint, though
 * nothing on the first screen waits for them. (Lighthouse's simulation also counts high-priority
 * scripts as render-blocking.)
 */
function scriptsAtLowPriority(): Plugin {
  return {
    name: 'scripts-at-low-priority',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: (html) =>
        html.replace(
          /<(script type="module"|link rel="modulepreload")(?![^>]*fetchpriority)/g,
          '<$1 fetchpriority="low"',
        ),
    },
  };
}

// The BFF serves `dist/` and replaces the `{}` inside `#runtime-config` in index.html with the
// public runtime config. In development the Vite server proxies the API to a locally running bff.
export default defineConfig({
  plugins: [react(), scriptsAtLowPriority()],
  server: {
    proxy: {
      '/api': {
        target: 'http://127.0.0.1:8080',
        changeOrigin: false,
      },
    },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // dist/.vite/manifest.json: which chunks each route loads (the pre-hydration JavaScript budget
    // in scripts/check-bundle-size.js reads it)
    manifest: true,
    // every browser the storefront supports has native <link rel="modulepreload">
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        codeSplitting: {
          // What every first view loads, in one chunk: the frame's libraries and the few app
          // modules that lazy routes share with the frame. Left to the default, shared-chunk
          // splitting cuts them into pieces that gzip worse apart than together (the entry
          // budget is measured gzipped). Only modules the frame imports anyway belong here;
          // Vite's preload helper is one (every lazy route's import goes through it), and apart
          // it cost 0.3 kB of the budget.
          groups: [
            {
              name: 'framework',
              test: /node_modules[\\/](react|react-dom|scheduler|react-router|@tanstack|openapi-fetch)[\\/]|src[\\/](lib[\\/](api|store)|components[\\/]ui[\\/]icons|features[\\/]cart[\\/]queries)\.tsx?$|vite[\\/]preload-helper/,
            },
          ],
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    // scripts/ holds the build's own Node scripts (compression, the JavaScript budget)
    include: ['src/**/*.test.{ts,tsx}', 'scripts/**/*.test.js'],
    setupFiles: ['./src/test/setup.ts'],
    // CI has 2 cores: a test that renders a route compiles its lazy module on first use, which
    // can take seconds while other test files run beside it. Assertions are unchanged.
    testTimeout: 15_000,
    restoreMocks: true,
    unstubGlobals: true,
    alias: [
      // One copy of react-router under Node: without this its main entry resolves to the CommonJS
      // build and its /dom entry to the ES build, and the two do not share their React contexts.
      { find: /^react-router$/, replacement: fromRoot('node_modules/react-router/dist/development/index.mjs') },
      {
        find: /^react-router\/dom$/,
        replacement: fromRoot('node_modules/react-router/dist/development/dom-export.mjs'),
      },
    ],
  },
});
