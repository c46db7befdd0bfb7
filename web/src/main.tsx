import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app/app';
import { createQueryClient } from './app/query-client';
import { HydrationMark } from './app/hydration-mark';
import { createAppRouter, createHydratingRouter } from './app/router';
import { readDocumentAnswers, setDocumentAnswers } from './ssr/document-data';
import { reportRecoverableError } from './ssr/recoverable-errors';
import './app/styles.css';

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
  void createHydratingRouter(queryClient).then((router) => {
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
} else {
  createRoot(container).render(
    <StrictMode>
      <HydrationMark>
        <App queryClient={queryClient} router={createAppRouter(queryClient)} />
      </HydrationMark>
    </StrictMode>,
  );
}
