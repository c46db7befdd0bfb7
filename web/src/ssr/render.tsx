import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { StaticRouter } from 'react-router';
import { App } from '../app/app';
import { loadFirstScreen } from '../app/first-screen';
import { createQueryClient } from '../app/query-client';
import { runtimeConfigQuery, type RuntimeConfig } from '../lib/runtime-config';
import { setDocumentAnswers, type DocumentAnswers } from './document-data';
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
  /** The API answers the first screen reads (see `document-data.ts`). */
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
 * the same routes, page loads and components as the browser, with a query client of its own (no
 * shopper's data can leak from one render into another). Anything personal (the session, the
 * cart) is not among the answers, so it renders as the browser's first render shows it before
 * its own requests return.
 */
export async function renderPage(input: RenderInput): Promise<RenderOutput> {
  setDocumentAnswers(input.answers, true);
  const queryClient = createQueryClient({ errorToasts: false });
  if (input.config) queryClient.setQueryData(runtimeConfigQuery.queryKey, input.config);
  const url = new URL(input.url);
  const load = await loadFirstScreen(queryClient, url);
  if (load.kind === 'redirect') return { kind: 'redirect', status: load.status, location: load.location };
  if (load.error !== undefined) {
    const error = load.error;
    throw error instanceof Error ? error : new Error(`page load failed: ${JSON.stringify(error)}`);
  }
  const tree = (
    <StrictMode>
      <StaticRouter location={`${url.pathname}${url.search}${url.hash}`}>
        <App queryClient={queryClient} first={load} />
      </StaticRouter>
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
  queryClient.clear();
  setDocumentAnswers({});
  const chunks = chunksOf(load.matches).map((file) => `/${file}`);
  return { kind: 'html', status: load.status, html, chunks };
}
