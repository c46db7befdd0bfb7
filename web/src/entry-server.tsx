/**
 * The server renderer's entry, built by `vite.ssr.config.ts` into one self-contained script
 * (`dist/ssr/render.js`) that the BFF evaluates in its embedded QuickJS engine. The host layer
 * is installed first: app modules read `location` and build `Request`s as they load.
 *
 * The BFF calls `globalThis.__ssrRender(inputJson)` and drives the promise jobs it returns, and
 * the virtual timers (`globalThis.__ssrHost.runNextTimer()`), until the result is set.
 *
 * The result is JSON, one of:
 * - `{kind: 'html', status, html, chunks}` or `{kind: 'redirect', status, location}`: the page
 *   (see `ssr/render.tsx`);
 * - `{kind: 'needs', needs: [{method, url, key}]}`: the loaders asked for reads the input had no
 *   answer to (`url` as the app sent it, `key` as the document's data is looked up by:
 *   `answerKey`). The render ends as soon as no job is left to run, without rendering anything
 *   from their absence; the BFF reads them from its own API in process, off the render thread,
 *   and calls again with the answers added (a bounded number of rounds).
 */
import { host } from './ssr/install-host';
import { answerKey } from './lib/document-data';
import { renderPage, type RenderInput } from './ssr/render';

interface RenderState {
  done: boolean;
  result: string;
  error: string;
}

const g = globalThis as unknown as {
  __ssrRender: (input: string) => RenderState;
  __ssrHost: typeof host;
};

/** The render in progress (one at a time per engine). */
let current: RenderState | null = null;

/** Ends `state` with what the render asked for and had no answer to, if anything: true if so. */
function endWithNeeds(state: RenderState): boolean {
  const needs = host.takeNeeds();
  if (needs.length === 0) return false;
  const asked = needs.map((need) => ({ ...need, key: answerKey(need.url) }));
  state.result = JSON.stringify({ kind: 'needs', needs: asked });
  state.done = true;
  return true;
}

g.__ssrHost = {
  ...host,
  // The engine calls this only when no promise job is left: a render waiting for a read it has
  // no answer to ends here, before any timer runs.
  runNextTimer: () => (current !== null && !current.done && endWithNeeds(current)) || host.runNextTimer(),
};
g.__ssrRender = (inputJson: string) => {
  const state: RenderState = { done: false, result: '', error: '' };
  current = state;
  host.resetTimers();
  host.takeNeeds();
  const input = JSON.parse(inputJson) as RenderInput;
  host.setLocation(input.url);
  renderPage(input).then(
    (output) => {
      // a page that rendered without a read it asked for is rendered again with it
      if (state.done || endWithNeeds(state)) return;
      state.result = JSON.stringify(output);
      state.done = true;
    },
    (error: unknown) => {
      if (state.done || endWithNeeds(state)) return;
      state.error = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
      state.done = true;
    },
  );
  return state;
};
