interface ReviewsApi {
  refresh: () => void;
}

declare global {
  interface Window {
    SandboxReviews?: ReviewsApi;
  }
}

let loading: Promise<ReviewsApi | null> | null = null;

/**
 * Loads the third-party reviews widget script once per page. Resolves with its API, or null when
 * the script cannot be loaded: the page then simply shows no reviews.
 */
export function loadReviewsWidget(scriptUrl: string): Promise<ReviewsApi | null> {
  if (window.SandboxReviews) return Promise.resolve(window.SandboxReviews);
  if (loading) return loading;
  const attempt = new Promise<ReviewsApi | null>((resolve) => {
    const script = document.createElement('script');
    script.src = scriptUrl;
    script.async = true;
    script.addEventListener('load', () => {
      resolve(window.SandboxReviews ?? null);
    });
    script.addEventListener('error', () => {
      script.remove();
      resolve(null);
    });
    document.head.append(script);
  });
  loading = attempt;
  void attempt.then((api) => {
    if (!api && loading === attempt) loading = null;
  });
  return attempt;
}
