import createClient, { type Middleware } from 'openapi-fetch';
import type { Problem } from '../api/types';
import type { paths } from '../api/schema';
import { documentResponse } from './document-data';
import { createStore } from './store';
import { newTraceparent } from './trace-context';

/**
 * The one module that talks to the BFF. Every call is same-origin JSON under `/api`, typed by the
 * BFF's OpenAPI contract (`src/api/schema.d.ts`): a call names its path, and its parameters, body
 * and answer types follow from it. Errors arrive as RFC 9457 problem details and become typed
 * `ApiProblem`s.
 *
 *   unwrap(api.GET('/api/products/{title}', { params: { path: { title } }, signal }))
 */

export interface UnwrapOptions {
  /**
   * Whether the request counts for the global loading indicator (default true). Only requests
   * the user does not wait for opt out. (Token refreshes, which the spec excludes, happen inside
   * the BFF and never reach the browser.)
   */
  trackLoading?: boolean;
}

/**
 * Unsafe methods carry the BFF's CSRF header (a simple request cannot set it cross-site); every
 * call starts a trace of its own (`traceparent`) that the BFF's spans join.
 */
const headers: Middleware = {
  onRequest({ request }) {
    request.headers.set('Accept', 'application/json, application/problem+json');
    request.headers.set('traceparent', newTraceparent());
    if (request.method !== 'GET' && request.method !== 'HEAD') request.headers.set('X-CSRF', '1');
    return request;
  },
};

export const api = createClient<paths>({
  // absolute, so `new Request` works outside a document too (tests); same origin in the browser
  baseUrl: globalThis.location.origin,
  credentials: 'same-origin',
  // looked up per call rather than captured once: test doubles (MSW) replace `fetch`. The first
  // screen's reads are answered from the document's own data when it carries them.
  fetch: (request: Request) => {
    const answer = documentResponse(request);
    return answer ? Promise.resolve(answer) : globalThis.fetch(request);
  },
});
api.use(headers);

/** Requests in flight that count for the global loading indicator. */
export const requestsInFlight = createStore(0);

/** An HTTP or network failure that did not come with a problem document. */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  /** HTTP status; 0 when no response arrived (network failure). */
  readonly status: number;

  constructor(status: number, message: string, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

/** The problem document of the contract (`Problem`): `errors` (field → message) may be absent or null. */
export type ProblemDetails = Problem;

/** A non-2xx answer with an `application/problem+json` body. */
export class ApiProblem extends ApiError implements ProblemDetails {
  override readonly name = 'ApiProblem';
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly code: string;
  readonly errors?: Record<string, string>;

  constructor(problem: ProblemDetails) {
    super(problem.status, problem.detail || problem.title || `Request failed with status ${String(problem.status)}`);
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.code = problem.code;
    if (problem.errors) this.errors = problem.errors;
  }
}

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

export function isApiProblem(err: unknown): err is ApiProblem {
  return err instanceof ApiProblem;
}

/**
 * The text of the generic error toast: the server's message, else the problem title, else the
 * error's own message. (The toast shows it as `Error: <text>`, see `errorToastText`.)
 */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiProblem) {
    return err.detail || err.title || err.message;
  }
  if (err instanceof Error) return err.message;
  if (typeof err === 'string') return err;
  return 'Something went wrong';
}

export function errorToastText(err: unknown): string {
  return `Error: ${errorMessage(err)}`;
}

/** A call's answer as openapi-fetch gives it: the contract's data, or the error body. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * Resolves a call of `api` to its data (typed by the contract), or throws: `ApiProblem` for a
 * problem+json answer, `ApiError` for any other failure (status 0 when no answer arrived).
 * Cancellations stay cancellations.
 */
export async function unwrap<T>(call: Promise<Answer<T>>, options: UnwrapOptions = {}): Promise<T> {
  const tracked = options.trackLoading !== false;
  if (tracked) requestsInFlight.set((count) => count + 1);
  try {
    let answer: Answer<T>;
    try {
      answer = await call;
    } catch (err) {
      if (isAbort(err)) throw err;
      if (err instanceof SyntaxError) throw new ApiError(0, 'The server sent an invalid response', { cause: err });
      const message = err instanceof Error ? err.message : 'Network request failed';
      throw new ApiError(0, message, { cause: err });
    }
    const { response } = answer;
    if (!response.ok) throw toError(response, answer.error);
    // 204 and empty bodies have no data; the contract gives those operations no body either
    return answer.data as T;
  } finally {
    if (tracked) requestsInFlight.set((count) => Math.max(0, count - 1));
  }
}

function toError(response: Response, body: unknown): ApiError {
  const contentType = response.headers.get('Content-Type') ?? '';
  const fallback = `Request failed with status ${String(response.status)}${
    response.statusText ? ` (${response.statusText})` : ''
  }`;
  if (contentType.includes('application/problem+json')) {
    const problem = toProblem(body, response.status);
    if (problem) return new ApiProblem(problem);
  }
  return new ApiError(response.status, fallback);
}

function toProblem(value: unknown, status: number): ProblemDetails | null {
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  const text = (key: string): string => {
    const field = record[key];
    return typeof field === 'string' ? field : '';
  };
  const problem: ProblemDetails = {
    type: text('type') || 'about:blank',
    title: text('title'),
    status: typeof record.status === 'number' ? record.status : status,
    detail: text('detail'),
    code: text('code'),
  };
  const errors = record.errors;
  if (typeof errors === 'object' && errors !== null) {
    problem.errors = Object.fromEntries(
      Object.entries(errors).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  }
  return problem;
}

function isAbort(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'name' in err && err.name === 'AbortError';
}
