/**
 * A page load that failed with an HTTP status: a loader threw a `Response` (React Router's way
 * to fail with a status), whose status, status text and text body the error page shows.
 */
export class PageStatusError extends Error {
  readonly status: number;
  readonly statusText: string;
  readonly body: string;

  constructor(status: number, statusText: string, body: string) {
    super(`${String(status)} ${statusText}`.trim());
    this.name = 'PageStatusError';
    this.status = status;
    this.statusText = statusText;
    this.body = body;
  }

  static async of(response: Response): Promise<PageStatusError> {
    const body = await response.text().catch(() => '');
    return new PageStatusError(response.status, response.statusText, body);
  }
}
