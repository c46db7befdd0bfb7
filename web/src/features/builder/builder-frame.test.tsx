import { act, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { renderRoute } from '../../test/render';
import { buildFiles, GUEST_SESSION_STORAGE_KEY } from './builder-frame';
import type { CreateUnityInstance, UnityInstance } from './unity-wrapper';

beforeAll(async () => {
  await import('../../app/routes/builder');
}, 30_000);

afterEach(() => {
  vi.useRealTimers();
  delete window.createUnityInstance;
});

function setWindowHeight(height: number) {
  Object.defineProperty(window, 'innerHeight', { value: height, configurable: true });
}

/** A loaded build's stand-in: records what the page sends it; progress is driven by the test. */
function fakeBuild() {
  const received: unknown[] = [];
  let progress: (value: number) => void = () => undefined;
  let finish: () => void = () => undefined;
  const configs: unknown[] = [];
  const instance: UnityInstance = {
    SendMessage: (gameObject, method, value) => {
      received.push({ gameObject, method, message: JSON.parse(String(value)) as unknown });
    },
    SetFullscreen: vi.fn(),
    Quit: vi.fn(() => Promise.resolve()),
  };
  const create: CreateUnityInstance = (_canvas, config, onProgress) => {
    configs.push(config);
    progress = (value) => onProgress?.(value);
    return new Promise((resolve) => {
      finish = () => {
        resolve(instance);
      };
    });
  };
  window.createUnityInstance = create;
  return { received, configs, progress: (value: number) => progress(value), finish: () => finish() };
}

function fromGame(data: unknown) {
  window.dispatchEvent(new MessageEvent('message', { data, origin: window.location.origin, source: window }));
}

describe('3D builder page', { timeout: 15_000 }, () => {
  it('hosts the build on a canvas at 16:9 within the container and the window height minus 140, resized after 250 ms of quiet', async () => {
    fakeBuild();
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(1200);
    setWindowHeight(900);
    renderRoute('/3dbuilder');
    const stage = await screen.findByRole('application', { name: '3D Builder' }, { timeout: 5000 });
    const canvas = stage.querySelector('canvas');
    expect(canvas).not.toBeNull();
    expect(document.querySelector('iframe')).toBeNull();
    // 1200 wide fits: 675 high under 900 - 140
    expect(canvas).toHaveAttribute('width', '1200');
    expect(canvas).toHaveAttribute('height', '675');

    vi.useFakeTimers();
    setWindowHeight(500);
    act(() => {
      window.dispatchEvent(new Event('resize'));
      vi.advanceTimersByTime(200);
      window.dispatchEvent(new Event('resize'));
      vi.advanceTimersByTime(249);
    });
    expect(canvas).toHaveAttribute('height', '675');
    act(() => {
      vi.advanceTimersByTime(1);
    });
    // 500 - 140 = 360 high: 640 wide
    expect(canvas).toHaveAttribute('width', '640');
    expect(canvas).toHaveAttribute('height', '360');
  });

  it('loads the Build folder files, is ready when progress reaches 1, and wires the bridge to the instance', async () => {
    const build = fakeBuild();
    renderRoute('/3dbuilder');
    await waitFor(() => {
      expect(build.configs).toHaveLength(1);
    });
    const origin = window.location.origin;
    expect(build.configs[0]).toEqual(
      expect.objectContaining({
        dataUrl: `${origin}/builder/Build/builder.data.br`,
        frameworkUrl: `${origin}/builder/Build/builder.framework.js.br`,
        codeUrl: `${origin}/builder/Build/builder.wasm.br`,
      }),
    );
    act(() => {
      build.progress(0.5);
    });
    expect(await screen.findByText('Loading the 3D experience… 50%')).toHaveAttribute('role', 'status');

    // a message before readiness is queued; readiness at progress 1 flushes it to the instance
    act(() => {
      fromGame({ type: 'checkForGuestSession' });
      build.progress(1);
      build.finish();
    });
    await waitFor(() => {
      expect(screen.queryByText(/Loading the 3D experience/)).not.toBeInTheDocument();
    });
    act(() => {
      fromGame({ type: 'registerBridge' });
      fromGame({ type: 'storeGuestSession', value: 'gid_from-game' });
    });
    await waitFor(() => {
      expect(build.received).toEqual([
        { gameObject: 'Bridge', method: 'Receive', message: { type: 'guestSession', value: '' } },
        { gameObject: 'Bridge', method: 'Receive', message: { type: 'registeredBridge' } },
        { gameObject: 'Bridge', method: 'Receive', message: { type: 'guestSessionStored', value: 'gid_from-game' } },
      ]);
    });
    expect(localStorage.getItem(GUEST_SESSION_STORAGE_KEY)).toBe('gid_from-game');
  });

  it('takes the build only from the page origin', () => {
    const base = 'https://shop.example/3dbuilder';
    expect(buildFiles('/Build', base)?.loaderUrl).toBe('https://shop.example/Build/builder.loader.js');
    expect(buildFiles('https://cdn.example/Build', base)).toBeNull();
    expect(buildFiles('', base)).toBeNull();
  });
});
