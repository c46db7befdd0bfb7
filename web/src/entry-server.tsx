/**
 * The server renderer's entry, built by `vite.ssr.config.ts` into one self-contained script
 * (`dist/ssr/render.js`) that the BFF evaluates in its embedded QuickJS engine. The host layer
 * is installed first: app modules read `location` and build `Request`s as they load.
 *
 * The BFF calls `globalThis.__ssrRender(inputJson)` and drives the promise jobs it returns, and
 * the virtual timers (`globalThis.__ssrHost.runNextTimer()`), until the result is set.
 */
import { host } from './ssr/install-host';
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

g.__ssrHost = host;
g.__ssrRender = (inputJson: string) => {
  const state: RenderState = { done: false, result: '', error: '' };
  host.resetTimers();
  const input = JSON.parse(inputJson) as RenderInput;
  host.setLocation(input.url);
  renderPage(input).then(
    (output) => {
      state.result = JSON.stringify(output);
      state.done = true;
    },
    (error: unknown) => {
      state.error = error instanceof Error ? `${error.name}: ${error.message}\n${error.stack ?? ''}` : String(error);
      state.done = true;
    },
  );
  return state;
};
