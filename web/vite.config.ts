/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { reactRouterProduction } from './vite.react-router';

const fromRoot = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The document's one script (`src/boot.ts`), built as an entry of its own. */
const BOOT = 'src/boot.ts';

/**
 * The app starts after the first screen has painted. The document's module script and its
 * modulepreloads, as Vite writes them, are replaced by the boot script, which names them in
 * `data-entry` and `data-preload` and loads them once the server-rendered screen (markup,
 * stylesheet, largest image) has painted: on a slow phone link the app's 130 kB would otherwise
 * share the bandwidth with the stylesheet and that image, though nothing on the first screen
 * waits for them. (Lighthouse's simulation also counts any script that loaded before the
 * largest paint towards it.) The stylesheet's link is left as it is.
 */
function startAfterFirstPaint(): Plugin {
  return {
    name: 'start-after-first-paint',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: (html, context) => {
        const boot = Object.values(context.bundle ?? {}).find(
          (output) => output.type === 'chunk' && output.isEntry && output.facadeModuleId === fromRoot(BOOT),
        );
        if (!boot) throw new Error(`the build has no ${BOOT} entry`);
        const entry = /<script type="module" crossorigin src="([^"]+)"><\/script>\s*/.exec(html);
        if (!entry) throw new Error("index.html's module script was not found");
        const preloads: string[] = [];
        const rest = html
          .replace(entry[0], '')
          .replace(/<link rel="modulepreload" crossorigin href="([^"]+)">\s*/g, (_, href: string) => {
            preloads.push(href);
            return '';
          });
        // at low priority: Lighthouse's simulation counts high-priority scripts as render-blocking
        const script = `<script type="module" fetchpriority="low" crossorigin src="/${boot.fileName}" data-entry="${entry[1]}" data-preload="${preloads.join(' ')}"></script>`;
        return rest.replace('</head>', `  ${script}\n  </head>`);
      },
    },
  };
}

// The BFF serves `dist/` and replaces the `{}` inside `#runtime-config` in index.html with the
// public runtime config. In development the Vite server proxies the API to a locally running bff.
export default defineConfig(({ command }) => ({
  plugins: [react(), startAfterFirstPaint()],
  resolve: { alias: command === 'build' ? reactRouterProduction : [] },
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
      // the document's module script is the boot script (see startAfterFirstPaint)
      input: { index: fromRoot('index.html'), boot: fromRoot(BOOT) },
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
    // console/ is the operators' console (its own build: vite.console.config.ts), tested here too
    include: ['src/**/*.test.{ts,tsx}', 'console/**/*.test.{ts,tsx}', 'scripts/**/*.test.js'],
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
}));
