import { describe, expect, it } from 'vitest';
import { newTraceparent, setTraceSampleRatio } from './trace-context';

const FORMAT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/;

describe('newTraceparent', () => {
  it('is a W3C traceparent with fresh random ids', () => {
    const first = newTraceparent(1);
    const second = newTraceparent(1);
    expect(first).toMatch(FORMAT);
    expect(second).toMatch(FORMAT);
    expect(first.slice(3, 35)).not.toBe(second.slice(3, 35));
  });

  it('marks the configured share sampled: all, none, and about half', () => {
    expect(newTraceparent(1).endsWith('-01')).toBe(true);
    expect(newTraceparent(0).endsWith('-00')).toBe(true);
    const sampled = Array.from({ length: 2000 }, () => newTraceparent(0.5)).filter((value) => value.endsWith('-01'));
    expect(sampled.length).toBeGreaterThan(800);
    expect(sampled.length).toBeLessThan(1200);
  });

  it('never uses an all-zero id', () => {
    let calls = 0;
    // the sampling draw, then a zero trace id (redrawn), then ones
    const fill = (bytes: Uint8Array) => {
      calls += 1;
      return bytes.fill(calls === 2 ? 0 : 1);
    };
    const value = newTraceparent(1, fill);
    expect(value).toMatch(FORMAT);
    expect(value).not.toContain('0'.repeat(32));
  });

  it('marks nothing sampled until the ratio is known, then follows it', () => {
    expect(newTraceparent().endsWith('-00')).toBe(true);
    setTraceSampleRatio(1);
    expect(newTraceparent().endsWith('-01')).toBe(true);
    setTraceSampleRatio(Number.NaN);
    expect(newTraceparent().endsWith('-00')).toBe(true);
  });
});
