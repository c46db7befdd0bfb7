/**
 * The admin API as the console calls it: every call carries the operator's token as a bearer
 * (kept in memory by the caller, never in storage or a cookie), answers are JSON, and a problem
 * (RFC 9457, as the BFF's `ApiError` writes it) becomes an `AdminError` that names its fields.
 */

/** A refused or failed admin call: its status, the problem's code and detail, and the fields it names. */
export class AdminError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  /** Field (or config key) → what is wrong with it, when the problem names any. */
  readonly fields: Record<string, string>;

  constructor(status: number, detail: string, code?: string, fields: Record<string, string> = {}) {
    super(detail);
    this.name = 'AdminError';
    this.status = status;
    this.code = code;
    this.fields = fields;
  }
}

export interface AdminClient {
  get: <T>(path: string, signal?: AbortSignal) => Promise<T>;
  getText: (path: string) => Promise<string>;
  post: <T>(path: string, body: unknown) => Promise<Answer<T>>;
}

/** A POST's answer: 202 (accepted, not confirmed everywhere) is not an error, but not a 200 either. */
export interface Answer<T> {
  status: number;
  body: T;
}

interface Problem {
  detail?: string;
  title?: string;
  code?: string;
  errors?: Record<string, unknown>;
  /** Some problems name one field or key as `field`/`key` rather than in `errors`. */
  field?: string;
  key?: string;
}

/** How long one admin call may take: the BFF's own limit (`admin.request_timeout`) is 30 s. */
const CALL_TIMEOUT_MS = 35_000;

export function adminClient(token: string, fetchImpl: typeof fetch = fetch): AdminClient {
  const call = async (path: string, init: RequestInit): Promise<Response> => {
    const signals = [AbortSignal.timeout(CALL_TIMEOUT_MS)];
    if (init.signal) signals.push(init.signal);
    let response: Response;
    try {
      response = await fetchImpl(path, {
        ...init,
        signal: AbortSignal.any(signals),
        // same origin: no cookie exists for the admin listener, and none is sent
        credentials: 'omit',
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
      });
    } catch (error) {
      throw new AdminError(
        0,
        `No answer from the admin API: ${error instanceof Error ? error.message : 'unknown error'}`,
      );
    }
    if (!response.ok) throw await problemOf(response);
    return response;
  };
  return {
    get: async <T>(path: string, signal?: AbortSignal) =>
      (await (await call(path, { method: 'GET', ...(signal ? { signal } : {}) })).json()) as T,
    getText: async (path: string) => (await call(path, { method: 'GET' })).text(),
    // the caller names the answer's shape (AdminClient.post), as for get
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
    post: async <T>(path: string, body: unknown) => {
      const response = await call(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as T };
    },
  };
}

/** The problem a refused answer carries, or a plain description when it carries none. */
export async function problemOf(response: Response): Promise<AdminError> {
  let problem: Problem = {};
  try {
    problem = (await response.json()) as Problem;
  } catch {
    // not JSON (a proxy's page): the status says enough
  }
  const fields: Record<string, string> = {};
  for (const [name, message] of Object.entries(problem.errors ?? {})) {
    fields[name] = typeof message === 'string' ? message : JSON.stringify(message);
  }
  const named = problem.field ?? problem.key;
  if (named && !(named in fields)) fields[named] = problem.detail ?? 'invalid';
  const detail =
    problem.detail ?? problem.title ?? (response.status === 401 ? 'The token was refused.' : response.statusText);
  return new AdminError(response.status, detail || `HTTP ${String(response.status)}`, problem.code, fields);
}

/** One line for an error, with the fields it names: what a live region announces. */
export function describeError(error: unknown): string {
  if (!(error instanceof AdminError)) return error instanceof Error ? error.message : 'Something went wrong.';
  const status = error.status > 0 ? ` (${String(error.status)})` : '';
  const fields = Object.entries(error.fields).map(([name, message]) => `${name}: ${message}`);
  const named = fields.filter((field) => !error.message.includes(field));
  return [`${error.message}${status}`, ...named].join('; ');
}
