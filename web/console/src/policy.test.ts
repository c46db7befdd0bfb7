import { describe, expect, it } from 'vitest';
import { POLICY_KEYS, overrideRequest } from './policy';

const form = { key: 'cache.product.ttl', value: ' 30s ', unset: false, expiresIn: '', canary: '' };

describe('a policy change', () => {
  it('covers the five policies of each of the six cached routes, spelled as in the TOML', () => {
    expect(POLICY_KEYS).toHaveLength(30);
    expect(POLICY_KEYS).toContain('cache.tiles.negative_ttl');
  });

  it('sends the value as typed, to the whole fleet, with no expiry unless given', () => {
    expect(overrideRequest(form, true)).toEqual({ set: { 'cache.product.ttl': '30s' }, unset: [], dryRun: true });
  });

  it('names its canary and expiry when given', () => {
    expect(overrideRequest({ ...form, canary: 'abc', expiresIn: '1h' }, false)).toEqual({
      set: { 'cache.product.ttl': '30s' },
      unset: [],
      expiresIn: '1h',
      canary: 'abc',
      dryRun: false,
    });
  });

  it('sends a byte size as a number, and anything else as typed for the BFF to judge', () => {
    expect(overrideRequest({ ...form, key: 'cache.pages.max_entry_bytes', value: '1024' }, false).set).toEqual({
      'cache.pages.max_entry_bytes': 1024,
    });
    expect(overrideRequest({ ...form, key: 'cache.pages.max_entry_bytes', value: '1 MB' }, false).set).toEqual({
      'cache.pages.max_entry_bytes': '1 MB',
    });
  });

  it('removes an override instead of setting one', () => {
    expect(overrideRequest({ ...form, unset: true }, false)).toEqual({
      set: {},
      unset: ['cache.product.ttl'],
      dryRun: false,
    });
  });
});
