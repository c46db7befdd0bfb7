import { isApiError } from '../../lib/api';

/**
 * Placing an order exactly once (issue 13). One Place Order is one attempt: its body (with the
 * one-time payment token) is prepared once and sent with one `Idempotency-Key`, generated for the
 * attempt. A request whose answer is lost (network failure, 5xx, a concurrent-duplicate 409) is
 * sent again with the same key and body, so the BFF answers the first outcome instead of placing a
 * second order. A second Place Order while an attempt runs (a double click) joins it. A settled
 * attempt is over: the next Place Order (another card after a decline) is a new attempt with a
 * new key.
 */

export interface OrderPlacerOptions<Body, Answer> {
  send: (body: Body, idempotencyKey: string) => Promise<Answer>;
  /** How many times a lost answer is asked again (default 2). */
  retries?: number;
  newKey?: () => string;
  /** Whether a failure may have lost the answer of a request that did reach the server. */
  isRetryable?: (error: unknown) => boolean;
}

export interface OrderPlacer<Body, Answer> {
  /** Runs one attempt (`prepare` builds the body, e.g. tokenizes the card), or joins the running one. */
  place: (prepare: () => Promise<Body>) => Promise<Answer>;
  isPlacing: () => boolean;
}

export function isLostAnswer(error: unknown): boolean {
  if (!isApiError(error)) return false;
  return (
    error.status === 0 || error.status === 409 || error.status === 502 || error.status === 503 || error.status === 504
  );
}

export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

export function createOrderPlacer<Body, Answer>(options: OrderPlacerOptions<Body, Answer>): OrderPlacer<Body, Answer> {
  const { send, retries = 2, newKey = newIdempotencyKey, isRetryable = isLostAnswer } = options;
  let running: Promise<Answer> | null = null;

  const attempt = async (prepare: () => Promise<Body>): Promise<Answer> => {
    const body = await prepare();
    const key = newKey();
    for (let tries = 0; ; tries += 1) {
      try {
        return await send(body, key);
      } catch (error) {
        if (tries >= retries || !isRetryable(error)) throw error;
      }
    }
  };

  return {
    place: (prepare) => {
      running ??= attempt(prepare).finally(() => {
        running = null;
      });
      return running;
    },
    isPlacing: () => running !== null,
  };
}
