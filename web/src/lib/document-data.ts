/**
 * The page's data as it travels inside a server-rendered document: the BFF's own API answers
 * the first screen reads (the composed product, the content pages), by request path, in a
 * non-executable `<script type="application/json" id="document-data">`.
 *
 * The app's API client answers a matching `GET` from them instead of the network (see
 * `lib/api.ts`), so the server renderer and the browser's hydration run the same loaders and
 * query functions on the same data, and the browser asks the API nothing for the first screen.
 * In the browser each answer serves once (later reads are refetches and go to the network); the
 * server renderer reuses them for every read of one render.
 */
export const DOCUMENT_DATA_ELEMENT_ID = 'document-data';

export interface DocumentAnswer {
  status: number;
  body: unknown;
}

/** API answers by [`answerKey`]. */
export type DocumentAnswers = Record<string, DocumentAnswer>;

let answers = new Map<string, DocumentAnswer>();
let reusable = false;

/** The key of a request for `url`: its path and query, percent-decoded (`/api/search?q=a b`). */
export function answerKey(url: string): string {
  const parsed = new URL(url, 'http://localhost');
  let path = parsed.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // kept as sent
  }
  const query = [...parsed.searchParams.entries()].map(([key, value]) => `${key}=${value}`).join('&');
  return query ? `${path}?${query}` : path;
}

/** Installs the answers (`reuse`: every read may use them, as in one server render). */
export function setDocumentAnswers(next: DocumentAnswers, reuse = false): void {
  answers = new Map(Object.entries(next));
  reusable = reuse;
}

/** The answer to `request` from the document, as a `Response`, or null to use the network. */
export function documentResponse(request: Request): Response | null {
  if (request.method !== 'GET') return null;
  const key = answerKey(request.url);
  const answer = answers.get(key);
  if (!answer) return null;
  if (!reusable) answers.delete(key);
  const type = answer.status >= 400 ? 'application/problem+json' : 'application/json';
  return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { 'content-type': type } });
}

function isAnswers(value: unknown): value is DocumentAnswers {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The embedded answers, or null when the document has none (the dev server's shell). */
export function readDocumentAnswers(doc: Document = document): DocumentAnswers | null {
  const text = doc.getElementById(DOCUMENT_DATA_ELEMENT_ID)?.textContent.trim() ?? '';
  if (text === '') return null;
  try {
    const json: unknown = JSON.parse(text);
    return isAnswers(json) ? json : null;
  } catch {
    return null;
  }
}
