import { isApiError } from './api';

/**
 * What the shopper is told when a search cannot be answered: the BFF's 503 `search_unavailable`
 * (the content service or the prices are down), any other failure to reach it, or its 429 for
 * too many searches from one connection. Shared by the results page and the search overlay.
 */
export interface SearchFailure {
  /** The short statement, e.g. 'Search is unavailable'. */
  title: string;
  /** What to do about it. */
  hint: string;
}

export const SEARCH_UNAVAILABLE: SearchFailure = {
  title: 'Search is unavailable',
  hint: 'Please try again in a moment, or browse the menu.',
};

export const TOO_MANY_SEARCHES: SearchFailure = {
  title: 'Too many searches',
  hint: 'Please wait a minute before searching again.',
};

export function searchFailure(error: unknown): SearchFailure {
  return isApiError(error) && error.status === 429 ? TOO_MANY_SEARCHES : SEARCH_UNAVAILABLE;
}
