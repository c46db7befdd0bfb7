/**
 * The message bridge between the page and the embedded 3D experience (spec: "Embedded 3D
 * experience"). Pure: no DOM, no React. The frame host gives it a way to post to the build, the
 * guest-session storage, in-app navigation and a warning sink; it gives back `receive` for the
 * window's `message` events and `send` for the page's own messages.
 *
 * - Ready when loading progress reaches 1 or when the game registers the bridge.
 * - Messages sent before readiness are queued (a duplicate of the same type and value is dropped)
 *   and flushed, in order, when ready.
 * - A failed send is retried after 500 ms.
 * - Once ready and registered, `registeredBridge` is sent (once).
 * - Messages are accepted only from the build's origin (the host posts only to it).
 */

export const SEND_RETRY_MS = 500;
export const GUEST_SESSION_PREFIX = 'gid_';
export const INVALID_GUEST_SESSION = 'invalid guest session id';

export interface BridgeMessage {
  type: string;
  value?: unknown;
}

export interface BridgeHost {
  /** The build's origin: the only one messages are accepted from. */
  origin: string;
  /** Posts a message to the build (to its origin only). Throws, or returns false, when it cannot. */
  post: (message: BridgeMessage) => boolean | undefined;
  guestSession: { read: () => string | null; store: (id: string) => void };
  /** Navigates inside the app (a path such as `/products/summit-lr`). */
  navigate: (path: string) => void;
  warn: (message: string, detail?: unknown) => void;
  setTimeout?: (callback: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
}

export interface Bridge {
  /** A `message` event (or anything shaped like `{origin, data}`): handled when it comes from the build. */
  receive: (event: { origin: string; data: unknown }) => void;
  /** Sends a message to the game: at once when ready, else queued. */
  send: (message: BridgeMessage) => void;
  readonly ready: boolean;
  readonly registered: boolean;
  /** Stops pending retries; later calls do nothing. */
  dispose: () => void;
}

export function isBridgeMessage(data: unknown): data is BridgeMessage {
  return typeof data === 'object' && data !== null && 'type' in data && typeof data.type === 'string';
}

function sameMessage(a: BridgeMessage, b: BridgeMessage): boolean {
  return a.type === b.type && JSON.stringify(a.value) === JSON.stringify(b.value);
}

/** An in-app path: starts with one `/` (not `//`, no scheme), so a deep link never leaves the site. */
export function isAppPath(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\');
}

export function createBridge(host: BridgeHost): Bridge {
  const schedule = host.setTimeout ?? ((callback: () => void, ms: number) => setTimeout(callback, ms));
  const cancel =
    host.clearTimeout ??
    ((handle: unknown) => {
      clearTimeout(handle as ReturnType<typeof setTimeout>);
    });
  const queue: BridgeMessage[] = [];
  const retries = new Set<unknown>();
  let ready = false;
  let registered = false;
  let announced = false;
  let disposed = false;

  const deliver = (message: BridgeMessage) => {
    if (disposed) return;
    let sent: boolean;
    try {
      sent = host.post(message) !== false;
    } catch {
      sent = false;
    }
    if (!sent) {
      const handle = schedule(() => {
        retries.delete(handle);
        deliver(message);
      }, SEND_RETRY_MS);
      retries.add(handle);
    }
  };

  const send = (message: BridgeMessage) => {
    if (disposed) return;
    if (!ready) {
      if (!queue.some((queued) => sameMessage(queued, message))) queue.push(message);
      return;
    }
    deliver(message);
  };

  const becomeReady = () => {
    if (!ready) {
      ready = true;
      for (const message of queue.splice(0)) deliver(message);
    }
    if (registered && !announced) {
      announced = true;
      deliver({ type: 'registeredBridge' });
    }
  };

  const handle = (message: BridgeMessage) => {
    switch (message.type) {
      case 'loadingProgress':
        if (typeof message.value === 'number' && message.value >= 1) becomeReady();
        return;
      case 'registerBridge':
        registered = true;
        becomeReady();
        return;
      case 'checkForBearerToken':
        // tokens never reach JavaScript: the BFF holds them
        send({ type: 'bearerToken', value: '' });
        return;
      case 'checkForGuestSession':
        send({ type: 'guestSession', value: host.guestSession.read() ?? '' });
        return;
      case 'storeGuestSession': {
        const id = message.value;
        if (typeof id === 'string' && id.startsWith(GUEST_SESSION_PREFIX)) {
          host.guestSession.store(id);
          send({ type: 'guestSessionStored', value: id });
        } else {
          send({ type: 'error', value: INVALID_GUEST_SESSION });
        }
        return;
      }
      case 'deeplink':
        if (isAppPath(message.value)) host.navigate(message.value);
        else host.warn('Ignored a deep link outside the site', message.value);
        return;
      case 'apiRequest': {
        const request = message.value;
        const id = typeof request === 'object' && request !== null && 'id' in request ? request.id : null;
        send({ type: 'apiResponse', value: { id, status: 501, body: { message: 'Not available in this build' } } });
        return;
      }
      default:
        host.warn(`Unknown bridge message type: ${message.type}`, message);
    }
  };

  return {
    receive: (event) => {
      if (disposed || event.origin !== host.origin || !isBridgeMessage(event.data)) return;
      handle(event.data);
    },
    send,
    get ready() {
      return ready;
    },
    get registered() {
      return registered;
    },
    dispose: () => {
      disposed = true;
      for (const handle of retries) cancel(handle);
      retries.clear();
      queue.length = 0;
    },
  };
}
