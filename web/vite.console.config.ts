import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const fromRoot = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The operators' console (`console/`): a build of its own, apart from the storefront's, so the
 * storefront's chunks and budgets (`vite.config.ts`, `scripts/check-bundle-size.js`) never see
 * it. The BFF serves `dist-console/` on the admin listener under `/admin/console/`
 * (`web.console_dir`), with a CSP that allows no inline script or style: the build has none.
 * In development the Vite server proxies the admin API to a locally running bff.
 */
export default defineConfig({
  root: fromRoot('console'),
  base: '/admin/console/',
  publicDir: false,
  plugins: [react()],
  server: {
    proxy: {
      '/admin/': { target: 'http://127.0.0.1:9090', changeOrigin: false },
    },
  },
  build: {
    outDir: fromRoot('dist-console'),
    emptyOutDir: true,
    // the console's few browsers (operators') all have native <link rel="modulepreload">
    modulePreload: { polyfill: false },
  },
});
