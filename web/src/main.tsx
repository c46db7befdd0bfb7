import { StrictMode, startTransition, type ReactNode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { unstable_HistoryRouter as HistoryRouter } from 'react-router';
import { App } from './app/app';
import { createAppHistory } from './app/browser-history';
import { loadFirstScreen } from './app/first-screen';
import { createQueryClient } from './app/query-client';
import { HydrationMark } from './app/hydration-mark';
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
const history = createAppHistory();

function app(children: ReactNode) {
  return (
    <StrictMode>
      <HydrationMark>
        <HistoryRouter history={history}>{children}</HistoryRouter>
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
    const load = await loadFirstScreen(queryClient, new URL(window.location.href));
    await yieldToMain();
    // (a redirect was the server's to answer; the page routes follow it, as after any load)
    const first = load.kind === 'page' ? load : null;
    // As a transition, hydration yields to the browser every few milliseconds instead of
    // holding the main thread for the whole page (Total Blocking Time).
    startTransition(() => {
      hydrateRoot(container, app(<App queryClient={queryClient} first={first} />), {
        onRecoverableError: reportRecoverableError,
      });
    });
  })();
} else {
  createRoot(container).render(app(<App queryClient={queryClient} first={null} />));
}
