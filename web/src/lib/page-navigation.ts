import { useCallback } from 'react';
import { useNavigate, type NavigateOptions, type To } from 'react-router';

let waiting: (() => void)[] = [];

/**
 * Called by the page routes when a page has been shown (committed) after a navigation: every
 * navigation waiting for it is done.
 */
export function pageShown(): void {
  const done = waiting;
  waiting = [];
  for (const resolve of done) resolve();
}

/** A promise for the next page shown. */
function nextPageShown(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
  });
}

/**
 * `navigate` that resolves once the new page is on screen (its module and data loaded, the
 * previous page gone): what a form awaits before it stops showing "saving", or logout before
 * it ends the session (the account area must be gone by then, or it would send the visitor to
 * sign-in).
 */
export function useNavigateWhenShown(): (to: To, options?: NavigateOptions) => Promise<void> {
  const navigate = useNavigate();
  return useCallback(
    (to: To, options?: NavigateOptions) => {
      const shown = nextPageShown();
      void navigate(to, options);
      return shown;
    },
    [navigate],
  );
}
