/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const fromRoot = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// The BFF serves `dist/` and replaces the `{}` inside `#runtime-config` in index.html with the
// public runtime config. In development the Vite server proxies the API to a locally running bff.
export default defineConfig({
  plugins: [react()],
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
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['./src/test/setup.ts'],
    restoreMocks: true,
    unstubGlobals: true,
    alias: [
      // One copy of react-router under Node: without this its main entry resolves to the CommonJS
      // build and its /dom entry to the ES build, and the two do not share their React contexts.
      { find: /^react-router$/, replacement: fromRoot('node_modules/react-router/dist/development/index.mjs') },
      { find: /^react-router\/dom$/, replacement: fromRoot('node_modules/react-router/dist/development/dom-export.mjs') },
    ],
  },
});
