/** The reCAPTCHA v2 browser API (the sandbox serves a compatible double). */
export interface CaptchaApi {
  render: (
    container: HTMLElement,
    parameters: {
      sitekey: string;
      callback?: (token: string) => void;
      'expired-callback'?: () => void;
      'error-callback'?: () => void;
    },
  ) => number;
  getResponse: (widgetId?: number) => string;
  reset: (widgetId?: number) => void;
}

const ONLOAD_CALLBACK = '__storefrontCaptchaReady';

declare global {
  interface Window {
    grecaptcha?: CaptchaApi;
    [ONLOAD_CALLBACK]?: () => void;
  }
}

let loading: Promise<CaptchaApi> | null = null;

/**
 * Loads the captcha script once per page (`?onload=…&render=explicit`: the page renders widgets
 * itself) and resolves with its API. A failed load can be retried by the next caller.
 */
export function loadCaptcha(scriptUrl: string): Promise<CaptchaApi> {
  if (window.grecaptcha?.render) return Promise.resolve(window.grecaptcha);
  if (loading) return loading;
  const attempt = new Promise<CaptchaApi>((resolve, reject) => {
    const url = new URL(scriptUrl, window.location.href);
    url.searchParams.set('onload', ONLOAD_CALLBACK);
    url.searchParams.set('render', 'explicit');
    window[ONLOAD_CALLBACK] = () => {
      if (window.grecaptcha) resolve(window.grecaptcha);
      else reject(new Error('The captcha script did not define grecaptcha'));
    };
    const script = document.createElement('script');
    script.src = url.toString();
    script.async = true;
    script.addEventListener('error', () => {
      script.remove();
      reject(new Error('The captcha script could not be loaded'));
    });
    document.head.append(script);
  });
  loading = attempt;
  attempt.catch(() => {
    if (loading === attempt) loading = null;
  });
  return attempt;
}
