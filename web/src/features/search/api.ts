import { queryOptions } from '@tanstack/react-query';
import type { Image, ProductCard, SearchResults } from '../../api/types';
import { api, unwrap } from '../../lib/api';

/** A search suggestion: a product card of `GET /api/search?q=`. */
export type SearchResult = ProductCard;

export type SearchResponse = SearchResults;

/** Suggestions appear only for more than 2 characters, after 500 ms without typing (spec constants). */
export const SUGGESTION_MIN_LENGTH = 3;
export const SUGGESTION_DEBOUNCE_MS = 500;
/** A submitted search needs more than 1 character. */
export const SUBMIT_MIN_LENGTH = 2;
/** The search icon's toggle is debounced 1 s, leading edge. */
export const TOGGLE_DEBOUNCE_MS = 1000;

export const searchKeys = {
  all: ['search'] as const,
  suggestions: (query: string) => [...searchKeys.all, 'suggestions', query] as const,
};

export function suggestionsQuery(query: string) {
  return queryOptions({
    queryKey: searchKeys.suggestions(query),
    queryFn: async ({ signal }) => {
      const answer = await unwrap(api.GET('/api/search', { params: { query: { q: query } }, signal }));
      return Array.isArray(answer.results) ? answer.results : [];
    },
    staleTime: 60_000,
    retry: false,
    // the overlay says "Search is unavailable" or "Too many searches" itself
    meta: { errorToast: false },
  });
}

/**
 * The result's image, without its text alternative (the title is next to it); null without a
 * source. Takes a missing image too: the card is the content service's, passed through.
 */
export function resultImage(result: { imgUrl?: Image | null }): { src: string; alt: string } | null {
  const src = result.imgUrl?.src;
  return src ? { src, alt: '' } : null;
}
