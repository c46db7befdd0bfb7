import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, vi } from 'vitest';
import { server } from './server';

beforeAll(() => {
  server.listen({ onUnhandledRequest: 'error' });
});

afterEach(() => {
  cleanup();
  server.resetHandlers();
  document.title = '';
});

afterAll(() => {
  server.close();
});

// jsdom implements neither scrolling nor media queries
Object.defineProperty(window, 'scrollTo', { value: vi.fn(), writable: true });
