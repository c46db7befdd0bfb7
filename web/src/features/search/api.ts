import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../../lib/api';

/** A search suggestion as `GET /api/search?q=` answers it. */
export interface SearchResult {
  title: string;
  subtitle?: string | null;
  url: string;
  /** An image, or its URL. */
  imgUrl?: { src: string; alt?: string | null } | string | null;
}

export interface SearchResponse {
  results: SearchResult[];
}

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
      const answer = await apiGet<SearchResponse>(`/api/search?q=${encodeURIComponent(query)}`, { signal });
      return Array.isArray(answer.results) ? answer.results : [];
    },
    staleTime: 60_000,
    retry: false,
  });
}

export function resultImage(result: SearchResult): { src: string; alt: string } | null {
  const image = result.imgUrl;
  if (!image) return null;
  if (typeof image === 'string') return image ? { src: image, alt: '' } : null;
  return image.src ? { src: image.src, alt: '' } : null;
}
