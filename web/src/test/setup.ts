import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { File as NodeFile } from 'node:buffer';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { CONSENT_KEY, CONSENT_TIMESTAMP_KEY } from '../features/analytics/consent';
import { resetAllStores } from '../lib/store';
import { server } from './server';

// findBy*/waitFor: a page's lazily loaded route module is compiled on first use, which on the
// shared CI cores can take longer than Testing Library's 1 s default
configure({ asyncUtilTimeout: 3_000 });

beforeAll(() => {
  server.listen({ onUnhandledFrame: 'error' });
});

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  // visitors in tests have already decided about analytics, unless a test says otherwise
  localStorage.setItem(CONSENT_KEY, 'false');
  localStorage.setItem(CONSENT_TIMESTAMP_KEY, '1');
});

afterEach(() => {
  cleanup();
  server.resetHandlers();
  resetAllStores();
  document.title = '';
  delete window.grecaptcha;
  delete window.dataLayer;
});

afterAll(() => {
  server.close();
});

// jsdom implements neither scrolling nor media queries
Object.defineProperty(window, 'scrollTo', { value: vi.fn(), writable: true });
Element.prototype.scrollIntoView = vi.fn();

// nor the modal methods of <dialog>: open/close it like a browser would, without the top layer
HTMLDialogElement.prototype.showModal = function showModal(this: HTMLDialogElement) {
  this.setAttribute('open', '');
};
HTMLDialogElement.prototype.close = function close(this: HTMLDialogElement) {
  if (!this.open) return;
  this.removeAttribute('open');
  this.dispatchEvent(new Event('close'));
};

// Node's fetch (Undici, Node 24 and later) makes File objects with the global File, which the
// jsdom environment has replaced with jsdom's: a FormData body built by the app (jsdom's FormData
// and Files, converted by Vitest's Request) would carry "[object Blob]" for each file. The Request
// is built with Node's File in place: synchronous, so nothing else runs meanwhile.
const JsdomCompatRequest = globalThis.Request;
globalThis.Request = class Request extends JsdomCompatRequest {
  constructor(input: RequestInfo | URL, init?: RequestInit) {
    const jsdomFile = globalThis.File;
    globalThis.File = NodeFile as unknown as typeof File;
    try {
      super(input, init);
    } finally {
      globalThis.File = jsdomFile;
    }
  }
};

// object URLs for fetched downloads
let objectUrlCount = 0;
URL.createObjectURL = () => `blob:http://localhost/${String((objectUrlCount += 1))}`;
URL.revokeObjectURL = () => undefined;
