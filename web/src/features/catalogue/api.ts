import type { MessageAnswer } from '../../api/types';
import { api, isApiError, unwrap } from '../../lib/api';
import type { Collection, ProductPage, SearchResults, StockAlert } from './types';

/**
 * The catalogue's calls: one composed request per page view (content and live prices together).
 * A product or collection that does not exist answers null (the page shows the not-found page).
 */

async function orNullOn404<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (isApiError(error) && error.status === 404) return null;
    throw error;
  }
}

export function fetchProduct(title: string, signal?: AbortSignal): Promise<ProductPage | null> {
  return orNullOn404(unwrap(api.GET('/api/products/{title}', { params: { path: { title } }, signal })));
}

export function fetchCollection(title: string, signal?: AbortSignal): Promise<Collection | null> {
  return orNullOn404(unwrap(api.GET('/api/collections/{title}', { params: { path: { title } }, signal })));
}

/**
 * The products matching `query`. A search the BFF cannot run throws (503 `search_unavailable`,
 * 429 for too many searches): the page says so rather than showing "no products match".
 */
export async function fetchSearch(query: string, signal?: AbortSignal): Promise<SearchResults> {
  const answer = await unwrap(api.GET('/api/search', { params: { query: { q: query } }, signal }));
  return { query: answer.query, results: Array.isArray(answer.results) ? answer.results : [] };
}

export function sendStockAlert(alert: StockAlert): Promise<MessageAnswer> {
  return unwrap(api.POST('/api/stock-alerts', { body: alert }));
}
