import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { createBridge } from './bridge';
import { fitSixteenByNine, RESIZE_DEBOUNCE_MS, trailingDebounce, type FrameSize } from './sizing';
import { createUnityWrapper, type CreateUnityInstance, type UnityConfig } from './unity-wrapper';
import './builder.css';

/** Where the guest session id the game hands over is kept. */
export const GUEST_SESSION_STORAGE_KEY = 'builderGuestSession';

/** The build's file names inside its Build folder: `{name}.loader.js`, `{name}.data.br`, … */
export const BUILD_NAME = 'builder';

/** The game object and method of the build that receive the page's bridge messages. */
export const BRIDGE_RECEIVER = { gameObject: 'Bridge', method: 'Receive' } as const;

const guestSession = {
  read: () => {
    try {
      return localStorage.getItem(GUEST_SESSION_STORAGE_KEY);
    } catch {
      return null;
    }
  },
  store: (id: string) => {
    try {
      localStorage.setItem(GUEST_SESSION_STORAGE_KEY, id);
    } catch {
      // storage unavailable (private mode): the id lives only as long as the game keeps it
    }
  },
};

export interface BuildFiles extends UnityConfig {
  loaderUrl: string;
}

/**
 * The build's files (loader, data, framework, wasm; all but the loader brotli-compressed) in the
 * Build folder the runtime config names, resolved against the page. Only the page's own origin
 * is accepted: the experience runs in the page, under its CSP. Null otherwise.
 */
export function buildFiles(buildUrl: string | undefined, base: string): BuildFiles | null {
  if (!buildUrl) return null;
  let folder: URL;
  try {
    folder = new URL(buildUrl.endsWith('/') ? buildUrl : `${buildUrl}/`, base);
  } catch {
    return null;
  }
  if (folder.origin !== new URL(base).origin) return null;
  const file = (name: string) => new URL(`${BUILD_NAME}.${name}`, folder).href;
  return {
    loaderUrl: file('loader.js'),
    dataUrl: file('data.br'),
    frameworkUrl: file('framework.js.br'),
    codeUrl: file('wasm.br'),
    productName: '3D Builder',
  };
}

declare global {
  interface Window {
    createUnityInstance?: CreateUnityInstance;
  }
}

/** The loader script's `createUnityInstance`, the script added once per page. */
function loadLoader(url: string): Promise<CreateUnityInstance> {
  const loaded = window.createUnityInstance;
  if (loaded) return Promise.resolve(loaded);
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = url;
    script.async = true;
    script.onload = () => {
      if (window.createUnityInstance) resolve(window.createUnityInstance);
      else reject(new Error('The 3D build loader defines no createUnityInstance'));
    };
    script.onerror = () => {
      script.remove();
      reject(new Error(`Could not load ${url}`));
    };
    document.head.append(script);
  });
}

type Loading = { state: 'loading'; progress: number } | { state: 'ready' } | { state: 'failed' };

/**
 * The embedded 3D experience, hosted in the page: the build from the runtime config's Build
 * folder runs on a canvas in a 16:9 area as wide as the container and no taller than the window
 * minus 140 px (recomputed on resize, debounced 250 ms). The message bridge talks to it through
 * the wrapper: the page's messages go in by `SendMessage`, the game's come as same-window
 * `message` events, and loading progress reaching 1 makes the bridge ready.
 */
export function BuilderFrame() {
  const config = useRuntimeConfig();
  const files = buildFiles(config?.builder.buildUrl, globalThis.location.href);
  const loaderUrl = files?.loaderUrl;
  const filesRef = useRef(files);
  const containerRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState<FrameSize | null>(null);
  const [loading, setLoading] = useState<Loading>({ state: 'loading', progress: 0 });
  const navigate = useNavigate();
  const navigateRef = useRef(navigate);

  useEffect(() => {
    navigateRef.current = navigate;
    filesRef.current = files;
  });

  useLayoutEffect(() => {
    const measure = () => {
      const container = containerRef.current;
      if (container) setSize(fitSixteenByNine(container.clientWidth, window.innerHeight));
    };
    measure();
    const onResize = trailingDebounce(measure, RESIZE_DEBOUNCE_MS);
    window.addEventListener('resize', onResize);
    return () => {
      onResize.cancel();
      window.removeEventListener('resize', onResize);
    };
  }, []);

  useEffect(() => {
    const build = filesRef.current;
    const canvas = canvasRef.current;
    if (!loaderUrl || !build || !canvas) return;
    let active = true;
    const origin = window.location.origin;
    const warn = (message: string, detail?: unknown) => {
      console.warn(message, detail);
    };
    const wrapper = createUnityWrapper(warn);
    const bridge = createBridge({
      origin,
      post: (message) =>
        wrapper.sendMessage(BRIDGE_RECEIVER.gameObject, BRIDGE_RECEIVER.method, JSON.stringify(message)),
      guestSession,
      navigate: (path) => {
        void navigateRef.current(path);
      },
      warn,
    });
    // the build runs in this window: its messages are this window's own
    const onMessage = (event: MessageEvent) => {
      if (event.source !== window) return;
      bridge.receive(event);
    };
    window.addEventListener('message', onMessage);
    setLoading({ state: 'loading', progress: 0 });

    // the bridge hears the progress once the instance is there to take what it then flushes
    let progress = 0;
    const tellBridge = () => {
      bridge.receive({ origin, data: { type: 'loadingProgress', value: progress } });
    };
    const onProgress = (value: number) => {
      if (!active) return;
      progress = value;
      setLoading(value >= 1 ? { state: 'ready' } : { state: 'loading', progress: value });
      if (wrapper.loaded) tellBridge();
    };
    loadLoader(loaderUrl)
      .then((create) => create(canvas, build, onProgress))
      .then((instance) => {
        if (!active) {
          void instance.Quit();
          return;
        }
        wrapper.attach(instance, canvas);
        tellBridge();
      })
      .catch((error: unknown) => {
        if (!active) return;
        warn('The 3D experience could not be loaded', error);
        setLoading({ state: 'failed' });
      });

    return () => {
      active = false;
      window.removeEventListener('message', onMessage);
      bridge.dispose();
      if (wrapper.loaded) void wrapper.quit();
    };
  }, [loaderUrl]);

  return (
    <div ref={containerRef} className="builder">
      {files ? (
        // an application: the game takes the pointer and the keyboard on its canvas
        <div role="application" aria-label="3D Builder" className="builder__stage">
          <canvas
            ref={canvasRef}
            className="builder__canvas"
            width={size?.width ?? 0}
            height={size?.height ?? 0}
            data-state={loading.state}
          />
        </div>
      ) : null}
      {files && loading.state === 'loading' ? (
        <p role="status" className="builder__status">
          Loading the 3D experience… {Math.round(loading.progress * 100)}%
        </p>
      ) : null}
      {loading.state === 'failed' ? <p role="alert">The 3D experience could not be loaded.</p> : null}
      {config && !files ? <p role="alert">The 3D experience is not available.</p> : null}
    </div>
  );
}
