import { UNSAFE_createBrowserHistory, type To } from 'react-router';
import { keepScrollFor } from './scroll-restoration';

interface NavigateOptions {
  preventScrollReset?: boolean;
}

/**
 * The browser's history as `BrowserRouter` makes it, which also notes the navigations that asked
 * to keep the scroll position: React Router passes `navigate`'s options to `push` and
 * `replace`, and only its data router would act on `preventScrollReset`.
 */
export function createAppHistory() {
  const history = UNSAFE_createBrowserHistory({ window, v5Compat: true });
  const push = history.push.bind(history);
  const replace = history.replace.bind(history);
  const note = (options: NavigateOptions | undefined) => {
    if (options?.preventScrollReset) keepScrollFor(history.location.key);
  };
  history.push = (to: To, state?: unknown, options?: NavigateOptions) => {
    push(to, state);
    note(options);
  };
  history.replace = (to: To, state?: unknown, options?: NavigateOptions) => {
    replace(to, state);
    note(options);
  };
  return history;
}
