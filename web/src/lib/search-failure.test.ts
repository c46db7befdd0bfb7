import { describe, expect, it } from 'vitest';
import { ApiError, ApiProblem } from './api';
import { SEARCH_UNAVAILABLE, TOO_MANY_SEARCHES, searchFailure } from './search-failure';

describe('searchFailure', () => {
  it('names a 429 as too many searches and every other failure as search unavailable', () => {
    const problem = (status: number, code: string) =>
      new ApiProblem({ type: '/problems/x', title: '', status, detail: '', code });
    expect(searchFailure(problem(429, 'rate_limited'))).toBe(TOO_MANY_SEARCHES);
    expect(searchFailure(problem(503, 'search_unavailable'))).toBe(SEARCH_UNAVAILABLE);
    expect(searchFailure(new ApiError(502, 'Bad Gateway'))).toBe(SEARCH_UNAVAILABLE);
    expect(searchFailure(new ApiError(0, 'Network request failed'))).toBe(SEARCH_UNAVAILABLE);
    expect(SEARCH_UNAVAILABLE.title).toBe('Search is unavailable');
  });
});
