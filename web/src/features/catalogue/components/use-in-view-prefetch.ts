import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { createInViewBudget, prefetchesInView, readPrefetchEnvironment } from '../logic/prefetch-policy';
import { prefetchProduct } from '../queries';

/** The data attribute that carries a card's product title for the observer. */
export const PREFETCH_TITLE_ATTRIBUTE = 'data-prefetch-title';

/**
 * On touch devices (and unless the browser asks to save data), prefetches the first
 * IN_VIEW_PREFETCH_LIMIT products whose cards, inside the returned ref's element, enter the
 * viewport. Elsewhere it does nothing: hover and focus announce intent there. `cards` is what the
 * grid renders: when it changes, the new cards are observed.
 */
export function useInViewPrefetch<T extends HTMLElement>(cards: readonly unknown[]) {
  const queryClient = useQueryClient();
  const ref = useRef<T>(null);
  // one budget for the grid's life: filtering it anew does not prefetch another eight
  const budgetRef = useRef(createInViewBudget());
  useEffect(() => {
    const root = ref.current;
    if (!root || typeof IntersectionObserver !== 'function' || !prefetchesInView(readPrefetchEnvironment())) return;
    const budget = budgetRef.current;
    if (budget.exhausted) return;
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        const title = entry.target.getAttribute(PREFETCH_TITLE_ATTRIBUTE);
        if (title !== null && budget.admit(title)) prefetchProduct(queryClient, title);
      }
      if (budget.exhausted) observer.disconnect();
    });
    for (const card of root.querySelectorAll(`[${PREFETCH_TITLE_ATTRIBUTE}]`)) observer.observe(card);
    return () => {
      observer.disconnect();
    };
    // the cards to observe change with the grid's products
  }, [queryClient, cards]);
  return ref;
}
