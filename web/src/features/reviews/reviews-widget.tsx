import { useEffect, useRef } from 'react';
import { afterFirstScreen } from '../../lib/idle';
import { useRuntimeConfig } from '../../lib/runtime-config';
import { loadReviewsWidget } from './load-reviews';

/** Fields about the user that the widget adds to its review form; the storefront removes them (spec). */
const USER_FIELDS = '[data-reviews-user-field]';

interface ReviewsWidgetProps {
  kind: 'summary' | 'list';
  /** A product's sku or title; site-wide reviews without it. */
  productId?: string;
}

/**
 * The third-party reviews widget from the runtime config: loaded once, after the first screen,
 * refreshed whenever this component mounts. Nothing breaks without it: the container stays empty.
 */
export function ReviewsWidget({ kind, productId }: ReviewsWidgetProps) {
  const scriptUrl = useRuntimeConfig()?.reviews.scriptUrl;
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const container = ref.current;
    if (!container || !scriptUrl) return;
    let cancelled = false;
    const removeUserFields = () => {
      for (const field of container.querySelectorAll(USER_FIELDS)) field.remove();
    };
    const observer = new MutationObserver(removeUserFields);
    observer.observe(container, { childList: true, subtree: true });
    const cancelLoad = afterFirstScreen(() => {
      void loadReviewsWidget(scriptUrl).then((api) => {
        if (cancelled || !api) return;
        try {
          api.refresh();
        } catch (error) {
          console.warn('The reviews widget failed to render', error);
        }
        removeUserFields();
      });
    });
    return () => {
      cancelled = true;
      cancelLoad();
      observer.disconnect();
    };
  }, [scriptUrl, productId]);

  return (
    <div
      ref={ref}
      className={`reviews-widget reviews-widget--${kind}`}
      data-reviews-widget={kind}
      data-product-id={productId}
    />
  );
}
