import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBridge, INVALID_GUEST_SESSION, SEND_RETRY_MS, type BridgeMessage } from './bridge';

const ORIGIN = 'https://build.example.test';

function setup(options: { stored?: string | null; failFirst?: number } = {}) {
  const posted: BridgeMessage[] = [];
  let failures = options.failFirst ?? 0;
  let stored = options.stored ?? null;
  const navigate = vi.fn<(path: string) => void>();
  const warn = vi.fn<(message: string, detail?: unknown) => void>();
  const bridge = createBridge({
    origin: ORIGIN,
    post: (message) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('no frame yet');
      }
      posted.push(message);
      return true;
    },
    guestSession: {
      read: () => stored,
      store: (id) => {
        stored = id;
      },
    },
    navigate,
    warn,
  });
  const fromGame = (data: unknown, origin = ORIGIN) => {
    bridge.receive({ origin, data });
  };
  return { bridge, posted, navigate, warn, fromGame, stored: () => stored };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('readiness and the queue', () => {
  it('queues messages before ready, drops duplicates of the same type and value, flushes in order when loading reaches 1', () => {
    const { bridge, posted, fromGame } = setup();
    bridge.send({ type: 'setColor', value: 'black' });
    bridge.send({ type: 'setColor', value: 'black' });
    bridge.send({ type: 'setColor', value: 'fde' });
    bridge.send({ type: 'openMenu' });
    bridge.send({ type: 'openMenu' });
    bridge.send({ type: 'setOptions', value: { barrel: 24 } });
    bridge.send({ type: 'setOptions', value: { barrel: 24 } });
    expect(posted).toEqual([]);
    expect(bridge.ready).toBe(false);

    fromGame({ type: 'loadingProgress', value: 0.5 });
    expect(bridge.ready).toBe(false);
    expect(posted).toEqual([]);

    fromGame({ type: 'loadingProgress', value: 1 });
    expect(bridge.ready).toBe(true);
    expect(posted).toEqual([
      { type: 'setColor', value: 'black' },
      { type: 'setColor', value: 'fde' },
      { type: 'openMenu' },
      { type: 'setOptions', value: { barrel: 24 } },
    ]);
    // not registered yet: no registeredBridge
    expect(posted.some((message) => message.type === 'registeredBridge')).toBe(false);

    // once ready, messages go out at once (duplicates included)
    bridge.send({ type: 'openMenu' });
    expect(posted.at(-1)).toEqual({ type: 'openMenu' });
  });

  it('is ready when the bridge registers, flushes the queue and then sends registeredBridge once', () => {
    const { bridge, posted, fromGame } = setup();
    bridge.send({ type: 'hello' });
    fromGame({ type: 'registerBridge' });
    expect(bridge.ready).toBe(true);
    expect(bridge.registered).toBe(true);
    expect(posted).toEqual([{ type: 'hello' }, { type: 'registeredBridge' }]);

    fromGame({ type: 'registerBridge' });
    fromGame({ type: 'loadingProgress', value: 1 });
    expect(posted.filter((message) => message.type === 'registeredBridge')).toHaveLength(1);
  });

  it('sends registeredBridge when the game registers after loading finished (the stand-in order)', () => {
    const { posted, fromGame } = setup();
    fromGame({ type: 'loadingProgress', value: 1 });
    expect(posted).toEqual([]);
    fromGame({ type: 'registerBridge' });
    expect(posted).toEqual([{ type: 'registeredBridge' }]);
  });

  it('retries a failed send after 500 ms', () => {
    const { bridge, posted, fromGame } = setup({ failFirst: 2 });
    fromGame({ type: 'loadingProgress', value: 1 });
    bridge.send({ type: 'ping' });
    expect(posted).toEqual([]);

    vi.advanceTimersByTime(SEND_RETRY_MS - 1);
    expect(posted).toEqual([]);
    vi.advanceTimersByTime(1);
    // the second attempt fails too: another 500 ms
    expect(posted).toEqual([]);
    vi.advanceTimersByTime(SEND_RETRY_MS);
    expect(posted).toEqual([{ type: 'ping' }]);
  });

  it('treats a post that returns false as failed, and stops retrying once disposed', () => {
    let attempts = 0;
    const bridge = createBridge({
      origin: ORIGIN,
      post: () => {
        attempts += 1;
        return false;
      },
      guestSession: { read: () => null, store: () => undefined },
      navigate: () => undefined,
      warn: () => undefined,
    });
    bridge.receive({ origin: ORIGIN, data: { type: 'registerBridge' } });
    expect(attempts).toBe(1);
    vi.advanceTimersByTime(SEND_RETRY_MS);
    expect(attempts).toBe(2);
    bridge.dispose();
    vi.advanceTimersByTime(SEND_RETRY_MS * 4);
    expect(attempts).toBe(2);
  });
});

describe('messages from the game', () => {
  it('accepts messages only from the build origin', () => {
    const { bridge, posted, fromGame, warn } = setup();
    fromGame({ type: 'registerBridge' }, 'https://evil.example.test');
    fromGame({ type: 'storeGuestSession', value: 'gid_evil' }, 'https://evil.example.test');
    fromGame({ type: 'whatever' }, 'null');
    expect(bridge.ready).toBe(false);
    expect(bridge.registered).toBe(false);
    expect(posted).toEqual([]);
    expect(warn).not.toHaveBeenCalled();

    fromGame({ type: 'registerBridge' });
    expect(posted).toEqual([{ type: 'registeredBridge' }]);
  });

  it('ignores data that is not a bridge message', () => {
    const { posted, fromGame, warn } = setup();
    fromGame('registerBridge');
    fromGame(null);
    fromGame({ value: 1 });
    expect(posted).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('answers checkForBearerToken with an empty token', () => {
    const { posted, fromGame } = setup();
    fromGame({ type: 'registerBridge' });
    fromGame({ type: 'checkForBearerToken' });
    expect(posted.at(-1)).toEqual({ type: 'bearerToken', value: '' });
  });

  it('answers checkForGuestSession with the stored id, or empty', () => {
    const empty = setup();
    empty.fromGame({ type: 'registerBridge' });
    empty.fromGame({ type: 'checkForGuestSession' });
    expect(empty.posted.at(-1)).toEqual({ type: 'guestSession', value: '' });

    const stored = setup({ stored: 'gid_123' });
    stored.fromGame({ type: 'registerBridge' });
    stored.fromGame({ type: 'checkForGuestSession' });
    expect(stored.posted.at(-1)).toEqual({ type: 'guestSession', value: 'gid_123' });
  });

  it('stores a guest session only with the gid_ prefix, and confirms it', () => {
    const { posted, fromGame, stored } = setup();
    fromGame({ type: 'registerBridge' });

    fromGame({ type: 'storeGuestSession', value: 'gid_abc' });
    expect(stored()).toBe('gid_abc');
    expect(posted.at(-1)).toEqual({ type: 'guestSessionStored', value: 'gid_abc' });

    for (const value of ['abc', 'GID_abc', ' gid_abc', '', 42, undefined]) {
      fromGame({ type: 'storeGuestSession', value });
      expect(posted.at(-1)).toEqual({ type: 'error', value: INVALID_GUEST_SESSION });
    }
    expect(INVALID_GUEST_SESSION).toBe('invalid guest session id');
    expect(stored()).toBe('gid_abc');
  });

  it('queues answers to messages that arrive before ready', () => {
    const { posted, fromGame } = setup();
    fromGame({ type: 'checkForBearerToken' });
    fromGame({ type: 'checkForBearerToken' });
    expect(posted).toEqual([]);
    fromGame({ type: 'registerBridge' });
    expect(posted).toEqual([{ type: 'bearerToken', value: '' }, { type: 'registeredBridge' }]);
  });

  it('navigates inside the app on deeplink, never off the site', () => {
    const { fromGame, navigate, warn } = setup();
    fromGame({ type: 'deeplink', value: '/products/summit-lr' });
    expect(navigate).toHaveBeenCalledWith('/products/summit-lr');
    fromGame({ type: 'deeplink', value: 'https://evil.example.test/' });
    fromGame({ type: 'deeplink', value: '//evil.example.test/' });
    fromGame({ type: 'deeplink', value: 'javascript:alert(1)' });
    expect(navigate).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledTimes(3);
  });

  it('answers apiRequest with a placeholder response carrying the request id', () => {
    const { posted, fromGame } = setup();
    fromGame({ type: 'registerBridge' });
    fromGame({ type: 'apiRequest', value: { id: 7, method: 'GET', path: '/api/session' } });
    const answer = posted.at(-1);
    expect(answer?.type).toBe('apiResponse');
    expect(answer?.value).toMatchObject({ id: 7 });
  });

  it('warns about unknown types', () => {
    const { posted, fromGame, warn } = setup();
    fromGame({ type: 'registerBridge' });
    fromGame({ type: 'unknownMessage' });
    expect(warn).toHaveBeenCalledWith('Unknown bridge message type: unknownMessage', { type: 'unknownMessage' });
    expect(posted).toEqual([{ type: 'registeredBridge' }]);
  });
});
