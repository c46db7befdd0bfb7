import { useEffect, useImperativeHandle, useRef, useState, type Ref } from 'react';
import { afterFirstScreen } from '../../lib/idle';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { loadCaptcha, type CaptchaApi } from './load-captcha';

export interface CaptchaHandle {
  /** Unticks the widget, whose token is then gone (spec: after a failed submit). The form clears its copy. */
  reset: () => void;
}

interface CaptchaProps {
  /** The token once solved; '' when it expires, fails or is reset. */
  onChange: (token: string) => void;
  ref?: Ref<CaptchaHandle>;
  /** A validation message shown under the widget. */
  error?: string | undefined;
}

/**
 * The captcha widget from the runtime config's site key and script (loaded once per page). The
 * widget brings its own labelled checkbox; this adds the validation message and `reset()`.
 */
export function Captcha({ onChange, ref, error }: CaptchaProps) {
  const config = useRuntimeConfig();
  const siteKey = config?.captcha.siteKey;
  const scriptUrl = config?.captcha.scriptUrl;
  const hostRef = useRef<HTMLDivElement>(null);
  const widget = useRef<{ api: CaptchaApi; id: number } | null>(null);
  const onChangeRef = useRef(onChange);
  const [unavailable, setUnavailable] = useState(false);

  useEffect(() => {
    onChangeRef.current = onChange;
  });

  useImperativeHandle(
    ref,
    () => ({
      reset: () => {
        const current = widget.current;
        if (current) current.api.reset(current.id);
      },
    }),
    [],
  );

  useEffect(() => {
    const host = hostRef.current;
    if (!host || !siteKey || !scriptUrl) return;
    let cancelled = false;
    // a fresh element per render: a widget cannot be rendered twice into one element
    const target = document.createElement('div');
    host.append(target);
    // the captcha's script is third-party and heavy: never part of the first screen
    const cancelLoad = afterFirstScreen(() => {
      loadCaptcha(scriptUrl).then(
        (api) => {
          if (cancelled) return;
          const id = api.render(target, {
            sitekey: siteKey,
            callback: (token) => {
              onChangeRef.current(token);
            },
            'expired-callback': () => {
              onChangeRef.current('');
            },
            'error-callback': () => {
              onChangeRef.current('');
            },
          });
          widget.current = { api, id };
        },
        () => {
          if (!cancelled) setUnavailable(true);
        },
      );
    });
    return () => {
      cancelled = true;
      cancelLoad();
      widget.current = null;
      target.remove();
    };
  }, [siteKey, scriptUrl]);

  return (
    <div className="captcha">
      <div ref={hostRef} />
      {unavailable ? (
        <p className="field__error" role="alert">
          The captcha could not be loaded. Please reload the page and try again.
        </p>
      ) : null}
      {error ? <p className="field__error">{error}</p> : null}
    </div>
  );
}
