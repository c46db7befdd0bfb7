import { afterEach, describe, expect, it } from 'vitest';
import {
  answerKey,
  DOCUMENT_DATA_ELEMENT_ID,
  documentResponse,
  readDocumentAnswers,
  setDocumentAnswers,
} from './document-data';

afterEach(() => {
  setDocumentAnswers({});
});

describe('answerKey', () => {
  it('is the path and query, percent-decoded, without origin or fragment', () => {
    expect(answerKey('http://shop.test/api/search?q=a%20b&page=2#top')).toBe('/api/search?q=a b&page=2');
    expect(answerKey('/api/products/caf%C3%A9')).toBe('/api/products/café');
    expect(answerKey('/api/products/%E0%A4%A')).toBe('/api/products/%E0%A4%A');
  });
});

describe('documentResponse', () => {
  it('answers a GET once in the browser, then leaves it to the network', async () => {
    setDocumentAnswers({ '/api/products/a': { status: 200, body: { slug: 'a' } } });
    const first = documentResponse(new Request('http://shop.test/api/products/a'));
    expect(first?.status).toBe(200);
    expect(first?.headers.get('content-type')).toBe('application/json');
    expect(await first?.json()).toEqual({ slug: 'a' });
    expect(documentResponse(new Request('http://shop.test/api/products/a'))).toBeNull();
  });

  it('answers every read of one server render when reusable', () => {
    setDocumentAnswers({ '/api/products/a': { status: 200, body: {} } }, true);
    expect(documentResponse(new Request('http://shop.test/api/products/a'))).not.toBeNull();
    expect(documentResponse(new Request('http://shop.test/api/products/a'))).not.toBeNull();
  });

  it('answers an error status as problem+json, and never a write', () => {
    setDocumentAnswers({ '/api/products/gone': { status: 404, body: { title: 'Not Found' } } }, true);
    const gone = documentResponse(new Request('http://shop.test/api/products/gone'));
    expect(gone?.status).toBe(404);
    expect(gone?.headers.get('content-type')).toBe('application/problem+json');
    expect(documentResponse(new Request('http://shop.test/api/products/gone', { method: 'POST' }))).toBeNull();
  });
});

describe('readDocumentAnswers', () => {
  function documentWith(text: string | null): Document {
    const doc = document.implementation.createHTMLDocument();
    if (text !== null) {
      const script = doc.createElement('script');
      script.type = 'application/json';
      script.id = DOCUMENT_DATA_ELEMENT_ID;
      script.textContent = text;
      doc.body.append(script);
    }
    return doc;
  }

  it('reads the embedded answers', () => {
    expect(readDocumentAnswers(documentWith('{"/api/config":{"status":200,"body":{}}}'))).toEqual({
      '/api/config': { status: 200, body: {} },
    });
  });

  it('is null without answers, or with ones that are not an object', () => {
    expect(readDocumentAnswers(documentWith(null))).toBeNull();
    expect(readDocumentAnswers(documentWith('  '))).toBeNull();
    expect(readDocumentAnswers(documentWith('[1]'))).toBeNull();
    expect(readDocumentAnswers(documentWith('{'))).toBeNull();
  });
});
