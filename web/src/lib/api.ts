import type { Problem } from '../api/types';
import { createStore } from './store';

/**
 * The one module that talks to the BFF. Every call is same-origin JSON under `/api`; errors arrive
 * as RFC 9457 problem details and become typed `ApiProblem`s.
 */

export type UnsafeMethod = 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
  /**
   * Whether the request counts for the global loading indicator (default true). Only requests
   * the user does not wait for opt out. (Token refreshes, which the spec excludes, happen inside
   * the BFF and never reach the browser.)
   */
  trackLoading?: boolean;
}

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

export function apiGet<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return request<T>('GET', path, undefined, options);
}

export function apiSend<T>(
  method: UnsafeMethod,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<T> {
  return request<T>(method, path, body, options);
}

async function request<T>(
  method: 'GET' | UnsafeMethod,
  path: string,
  body: unknown,
  options: RequestOptions,
): Promise<T> {
  const headers = new Headers(options.headers);
  headers.set('Accept', 'application/json, application/problem+json');
  if (method !== 'GET') headers.set('X-CSRF', '1');

  let payload: BodyInit | undefined;
  if (body instanceof FormData) {
    payload = body; // the browser sets the multipart boundary
  } else if (body !== undefined) {
    headers.set('Content-Type', 'application/json');
    payload = JSON.stringify(body);
  }

  const init: RequestInit = { method, headers, credentials: 'same-origin' };
  if (payload !== undefined) init.body = payload;
  if (options.signal) init.signal = options.signal;

  const tracked = options.trackLoading !== false;
  if (tracked) requestsInFlight.set((count) => count + 1);
  try {
    return await send<T>(path, init);
  } finally {
    if (tracked) requestsInFlight.set((count) => Math.max(0, count - 1));
  }
}

async function send<T>(path: string, init: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    if (isAbort(err)) throw err; // cancellations stay cancellations
    const message = err instanceof Error ? err.message : 'Network request failed';
    throw new ApiError(0, message, { cause: err });
  }

  if (!response.ok) throw await toError(response);
  if (response.status === 204 || response.status === 205) return undefined as T;

  const text = await response.text();
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new ApiError(response.status, 'The server sent an invalid response', { cause: err });
  }
}

async function toError(response: Response): Promise<ApiError> {
  const contentType = response.headers.get('Content-Type') ?? '';
  const fallback = `Request failed with status ${String(response.status)}${
    response.statusText ? ` (${response.statusText})` : ''
  }`;
  if (contentType.includes('application/problem+json')) {
    try {
      const problem = toProblem(await response.json(), response.status);
      if (problem) return new ApiProblem(problem);
    } catch {
      // an unreadable problem document is reported like any other failure
    }
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
