import { afterEach, describe, expect, it } from 'vitest';
import type { Metric } from 'web-vitals';
import { batches, MAX_BODY_BYTES, MAX_REPORTS, startWebVitals, type RumReport } from './web-vitals';

const report = (value: number, route = '/product/:title'): RumReport => ({ route, name: 'LCP', value });

function hide() {
  Object.defineProperty(document, 'visibilityState', { configurable: true, value: 'hidden' });
  document.dispatchEvent(new Event('visibilitychange'));
}

afterEach(() => {
  Object.defineProperty(document, 'visibilityState', { configurable: true, value: 'visible' });
});

describe('batches', () => {
  it('keeps each body within the BFF limits', () => {
    const many = Array.from({ length: 150 }, (_, index) => report(index));
    const bodies = batches(many);
    expect(bodies).toHaveLength(3);
    for (const body of bodies) {
      const parsed = JSON.parse(body) as { reports: RumReport[] };
      expect(parsed.reports.length).toBeLessThanOrEqual(MAX_REPORTS);
      expect(new TextEncoder().encode(body).length).toBeLessThanOrEqual(MAX_BODY_BYTES);
    }
    const sent = bodies.flatMap((body) => (JSON.parse(body) as { reports: RumReport[] }).reports);
    expect(sent).toEqual(many);
  });

  it('drops a report too big to send alone', () => {
    expect(batches([report(1, 'x'.repeat(MAX_BODY_BYTES))])).toEqual([]);
  });
});

describe('startWebVitals', () => {
  function harness(route = '/product/:title') {
    const callbacks: ((metric: Metric) => void)[] = [];
    const sent: string[] = [];
    let current = route;
    const reporter = startWebVitals({
      currentRoute: () => current,
      send: (body) => sent.push(body),
      observers: [(callback) => callbacks.push(callback)],
    });
    const emit = (name: Metric['name'], value: number) => {
      for (const callback of callbacks) callback({ name, value } as Metric);
    };
    return { reporter, sent, emit, go: (next: string) => (current = next) };
  }

  it('queues vitals by route template and sends one beacon when the page is hidden', () => {
    const { sent, emit, go, reporter } = harness();
    emit('LCP', 1234.5);
    go('/');
    emit('CLS', 0.04);
    emit('TTFB', 80);
    expect(sent).toEqual([]);
    hide();
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0] ?? '')).toEqual({
      reports: [
        { route: '/product/:title', name: 'LCP', value: 1234.5 },
        { route: '/', name: 'CLS', value: 0.04 },
      ],
    });
    hide();
    expect(sent).toHaveLength(1);
    reporter.stop();
  });

  it('sends on pagehide and reports nothing once stopped', () => {
    const { sent, emit, reporter } = harness();
    emit('INP', 96);
    window.dispatchEvent(new Event('pagehide'));
    expect(sent).toHaveLength(1);
    reporter.stop();
    emit('INP', 300);
    hide();
    expect(sent).toHaveLength(1);
  });
});
