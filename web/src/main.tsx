import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app/app';
import { createQueryClient } from './app/query-client';
import { HydrationMark } from './app/hydration-mark';
import { createAppRouter, createHydratingRouter } from './app/router';
import { readDocumentAnswers, setDocumentAnswers } from './ssr/document-data';
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

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

// A server-rendered document carries its first screen's data: the app's reads of it are
// answered from the document, so nothing is fetched twice.
const answers = readDocumentAnswers();
if (answers) setDocumentAnswers(answers);

if (container.firstElementChild) {
  // the server rendered the first screen: take it over as it is
  window.__recoverableErrors = [];
  // Evaluating the app, starting its router (which runs the page's loaders on the document's
  // data) and hydrating are three tasks, not one: the page is already painted, and a phone's
  // taps and scrolls stay answered between them.
  void (async () => {
    await yieldToMain();
    const router = await createHydratingRouter(queryClient);
    await yieldToMain();
    // As a transition, hydration yields to the browser every few milliseconds instead of
    // holding the main thread for the whole page (Total Blocking Time).
    startTransition(() => {
      hydrateRoot(
        container,
        <StrictMode>
          <HydrationMark>
            <App queryClient={queryClient} router={router} />
          </HydrationMark>
        </StrictMode>,
        { onRecoverableError: reportRecoverableError },
      );
    });
  })();
} else {
  createRoot(container).render(
    <StrictMode>
      <HydrationMark>
        <App queryClient={queryClient} router={createAppRouter(queryClient)} />
      </HydrationMark>
    </StrictMode>,
  );
}
