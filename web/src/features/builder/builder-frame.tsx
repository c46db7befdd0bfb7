import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { safeImageSrc } from '../../lib/safe-url';
import { createBridge, type Bridge } from './bridge';
import { fitSixteenByNine, RESIZE_DEBOUNCE_MS, trailingDebounce, type FrameSize } from './sizing';
import './builder.css';

/** Where the guest session id the game hands over is kept. */
export const GUEST_SESSION_STORAGE_KEY = 'builderGuestSession';

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

/** The build URL resolved against the page, with its origin; null when missing or not http(s). */
export function resolveBuildUrl(buildUrl: string | undefined, base: string): { url: string; origin: string } | null {
  const safe = safeImageSrc(buildUrl);
  if (!safe) return null;
  try {
    const url = new URL(safe, base);
    return { url: url.href, origin: url.origin };
  } catch {
    return null;
  }
}

/**
 * The embedded 3D experience: the build URL from the runtime config in a 16:9 frame as wide as
 * the container and no taller than the window minus 140 px (recomputed on resize, debounced
 * 250 ms), talking to the page through the message bridge.
 */
export function BuilderFrame() {
  const config = useRuntimeConfig();
  const build = resolveBuildUrl(config?.builder.buildUrl, globalThis.location.href);
  const buildUrl = build?.url;
  const origin = build?.origin;
  const containerRef = useRef<HTMLDivElement>(null);
  const frameRef = useRef<HTMLIFrameElement>(null);
  const [size, setSize] = useState<FrameSize | null>(null);
  const navigate = useNavigate();
  const navigateRef = useRef(navigate);
  const bridgeRef = useRef<Bridge | null>(null);

  useEffect(() => {
    navigateRef.current = navigate;
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
    if (!origin) return;
    const bridge = createBridge({
      origin,
      post: (message) => {
        const target = frameRef.current?.contentWindow;
        if (!target) return false;
        target.postMessage(message, origin);
        return true;
      },
      guestSession,
      navigate: (path) => {
        void navigateRef.current(path);
      },
      warn: (message, detail) => {
        console.warn(message, detail);
      },
    });
    bridgeRef.current = bridge;
    const onMessage = (event: MessageEvent) => {
      // only the framed build speaks the bridge
      if (event.source !== frameRef.current?.contentWindow) return;
      bridge.receive(event);
    };
    window.addEventListener('message', onMessage);
    return () => {
      window.removeEventListener('message', onMessage);
      bridge.dispose();
      bridgeRef.current = null;
    };
  }, [origin]);

  return (
    <div ref={containerRef} className="builder">
      {buildUrl && size ? (
        <iframe
          ref={frameRef}
          className="builder__frame"
          title="3D Builder"
          src={buildUrl}
          width={size.width}
          height={size.height}
          referrerPolicy="origin"
          allow="fullscreen"
        />
      ) : null}
      {config && !build ? <p role="alert">The 3D experience is not available.</p> : null}
    </div>
  );
}
