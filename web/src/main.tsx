import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider, type HydrationState } from 'react-router';
import { App } from './app/app';
import { loadFirstScreen } from './app/first-screen';
import { createPageTable } from './app/page-table';
import { createQueryClient } from './app/query-client';
import { HydrationMark } from './app/hydration-mark';
import { readDocumentAnswers, setDocumentAnswers } from './lib/document-data';
import { reportRecoverableError } from './ssr/recoverable-errors';
import { yieldToMain } from './lib/yield-to-main';
import './app/styles.css';
// The styles of every server-rendered first screen go in the entry's stylesheet, which the
// document links in its head: a page whose styles came with its route chunk would paint
// unstyled, then move when the chunk arrives (Lighthouse measured a layout shift of 0.79 on the
// product page). The check in scripts/check-first-screen-styles.js keeps it so.
import './features/catalogue/catalogue.css';
import './features/dealers/dealers.css';

const queryClient = createQueryClient();
const routes = createPageTable(queryClient);

/** The app in React Router's data router, from the first screen's hydration data if there is one. */
function app(hydrationData?: HydrationState) {
  const router = createBrowserRouter(routes, hydrationData ? { hydrationData } : {});
  return (
    <StrictMode>
      <HydrationMark>
        <App queryClient={queryClient}>
          <RouterProvider router={router} />
        </App>
      </HydrationMark>
    </StrictMode>
  );
}

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

// A server-rendered document carries its first screen's data: the app's reads of it are
// answered from the document, so nothing is fetched twice.
const answers = readDocumentAnswers();
if (answers) setDocumentAnswers(answers);

if (container.firstElementChild) {
  // the server rendered the first screen: take it over as it is
  window.__recoverableErrors = [];
  // Evaluating the app, loading the first page (its module, and its data from the document) and
  // hydrating are three tasks, not one: the page is already painted, and a phone's taps and
  // scrolls stay answered between them.
  void (async () => {
    await yieldToMain();
    const hydrationData = await loadFirstScreen(routes, new URL(window.location.href));
    await yieldToMain();
    if (!hydrationData) {
      // (a redirect or a failure was the server's to answer: the router loads the page itself)
      createRoot(container).render(app());
      return;
    }
    // As a transition, hydration yields to the browser every few milliseconds instead of
    // holding the main thread for the whole page (Total Blocking Time).
    startTransition(() => {
      hydrateRoot(container, app(hydrationData), { onRecoverableError: reportRecoverableError });
    });
  })();
} else {
  createRoot(container).render(app());
}
