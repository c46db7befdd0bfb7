import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { createStaticHandler, createStaticRouter, isRouteErrorResponse, StaticRouterProvider } from 'react-router';
import { App } from '../app/app';
import { createPageTable } from '../app/page-table';
import { createQueryClient } from '../app/query-client';
import { runtimeConfigQuery, type RuntimeConfig } from '../lib/runtime-config';
import { setDocumentAnswers, type DocumentAnswers } from '../lib/document-data';
import { chunksOf } from './route-chunks';

/** React's marker of a Suspense boundary left for the browser to render. */
const CLIENT_RENDERED = '<!--$!-->';
const LAZY_ATTEMPTS = 10;
const LAZY_WAIT_MS = 20;

export interface RenderInput {
  /** The page's absolute URL. */
  url: string;
  /** The public runtime config, as the document embeds it. */
  config: RuntimeConfig | null;
  /** The API answers the first screen reads (see `lib/document-data.ts`). */
  answers: DocumentAnswers;
}

export type RenderOutput =
  | {
      kind: 'html';
      status: number;
      html: string;
      /** The matched routes' scripts (`/assets/…js`), which the document lists for the boot script. */
      chunks: string[];
    }
  | { kind: 'redirect'; status: number; location: string };

/**
 * The first screen of `input.url` as React renders it on the server, from the answers given:
 * the same routes, loaders and components as the browser, in React Router's static data router
 * (`createStaticHandler` runs the matched routes' loaders, `StaticRouterProvider` renders), with a
 * query client of its own (no shopper's data can leak from one render into another). Anything
 * personal (the session, the cart) is not among the answers, so it renders as the browser's first
 * render shows it before its own requests return.
 *
 * The router's own hydration script is left out (`hydrate={false}`): the document's CSP would
 * block an inline script, and a shared document cannot carry a nonce. The browser rebuilds the
 * same hydration data from the document's `#document-data` answers (`app/first-screen.ts`).
 */
export async function renderPage(input: RenderInput): Promise<RenderOutput> {
  setDocumentAnswers(input.answers, true);
  const queryClient = createQueryClient({ errorToasts: false });
  if (input.config) queryClient.setQueryData(runtimeConfigQuery.queryKey, input.config);
  try {
    const url = new URL(input.url);
    const handler = createStaticHandler(createPageTable(queryClient));
    const context = await handler.query(new Request(url));
    if (context instanceof Response) {
      return { kind: 'redirect', status: context.status, location: context.headers.get('Location') ?? '/' };
    }
    const failure: unknown = context.errors ? Object.values(context.errors)[0] : undefined;
    if (failure !== undefined) {
      throw failure instanceof Error ? failure : new Error(`page load failed: ${describeFailure(failure)}`);
    }
    const router = createStaticRouter(handler.dataRoutes, context);
    const tree = (
      <StrictMode>
        <App queryClient={queryClient}>
          <StaticRouterProvider router={router} context={context} hydrate={false} />
        </App>
      </StrictMode>
    );
    // `renderToString` cannot wait: a `lazy` component whose module has not resolved yet renders
    // its boundary as "client-rendered" (`<!--$!-->`). In the server bundle its module resolves
    // within a turn (the engine's timers are virtual: the wait costs nothing), under Node's module
    // loader within milliseconds; render again once it has, so every render of a page is the same.
    let html = renderToString(tree);
    for (let attempt = 0; attempt < LAZY_ATTEMPTS && html.includes(CLIENT_RENDERED); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, LAZY_WAIT_MS));
      html = renderToString(tree);
    }
    const chunks = chunksOf(context.matches).map((file) => `/${file}`);
    return { kind: 'html', status: context.statusCode, html, chunks };
  } finally {
    queryClient.clear();
    setDocumentAnswers({});
  }
}

/** A loader's failure that is not an `Error`: an error response (status, text) or a value. */
function describeFailure(failure: unknown): string {
  if (isRouteErrorResponse(failure)) return `${String(failure.status)} ${failure.statusText}`.trim();
  return JSON.stringify(failure);
}
