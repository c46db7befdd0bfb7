/**
 * `AbortController` and `AbortSignal` for the server render's engine, which has neither (nor an
 * `EventTarget`): a signal's listeners and `onabort` run once, on the first `abort`, in the order
 * they were added; `reason` defaults to an `AbortError`. Our own: see `headers.ts`.
 */

type AbortListener = (event: { type: 'abort'; target: HostAbortSignal }) => void;

/** The default `reason`: what `DOMException('…', 'AbortError')` says (the engine may lack DOMException). */
function abortError(): Error {
  const error = new Error('This operation was aborted');
  error.name = 'AbortError';
  return error;
}

export class HostAbortSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: AbortListener | null = null;
  private listeners: { listener: AbortListener; once: boolean }[] = [];

  /** A signal that is already aborted (`AbortSignal.abort(reason)`). */
  static abort(reason?: unknown): HostAbortSignal {
    const controller = new HostAbortController();
    controller.abort(reason);
    return controller.signal;
  }

  addEventListener(type: string, listener: AbortListener, options?: { once?: boolean } | boolean): void {
    if (type !== 'abort' || this.listeners.some((entry) => entry.listener === listener)) return;
    this.listeners.push({ listener, once: typeof options === 'object' && options.once === true });
  }
  removeEventListener(type: string, listener: AbortListener): void {
    if (type === 'abort') this.listeners = this.listeners.filter((entry) => entry.listener !== listener);
  }
  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** @internal The controller's `abort`. */
  fire(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason === undefined ? abortError() : reason;
    const event = { type: 'abort' as const, target: this };
    this.onabort?.(event);
    const listeners = this.listeners;
    this.listeners = listeners.filter((entry) => !entry.once);
    for (const { listener } of listeners) listener(event);
  }
}

export class HostAbortController {
  readonly signal = new HostAbortSignal();
  abort(reason?: unknown): void {
    this.signal.fire(reason);
  }
}
