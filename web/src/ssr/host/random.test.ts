import { describe, expect, it } from 'vitest';
import { getRandomValuesStandIn } from './random';

describe('getRandomValuesStandIn: the render’s stand-in crypto.getRandomValues', () => {
  it('fills the bytes of the view it is given, in place, and returns it', () => {
    const buffer = new Uint8Array(64);
    const view = new Uint32Array(buffer.buffer, 16, 8);
    expect(getRandomValuesStandIn(view)).toBe(view);
    // 32 bytes of the view drawn: all of them zero by chance is 2^-256
    expect(buffer.slice(16, 48).some((byte) => byte !== 0)).toBe(true);
    // the bytes around the view stay as they were
    expect(buffer.slice(0, 16).every((byte) => byte === 0)).toBe(true);
    expect(buffer.slice(48).every((byte) => byte === 0)).toBe(true);
  });
});
