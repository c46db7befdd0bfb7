import { describe, expect, it } from 'vitest';
import { list, percent, reasons, replicaName, shown } from './format';

describe('the console writes', () => {
  it('ratios as percentages, and no lookups as a dash rather than 0 %', () => {
    expect(percent(0.8734)).toBe('87.3 %');
    expect(percent(0)).toBe('0.0 %');
    expect(percent(null)).toBe('–');
  });

  it('miss reasons most frequent first, leaving out those that did not happen', () => {
    expect(reasons({ cold: 1, purged: 3, expired: 0 })).toBe('purged 3, cold 1');
    expect(reasons({})).toBe('–');
  });

  it('tags and keys one per line or comma separated', () => {
    expect(list(' page:home,\nproduct:summit lr \n\n, ')).toEqual(['page:home', 'product:summit lr']);
  });

  it('a replica by its pod, else by the start of its id', () => {
    expect(replicaName({ id: '03166ee7-9d08-4d0d', pod: null })).toBe('03166ee7');
    expect(replicaName({ id: '03166ee7-9d08-4d0d', pod: 'bff-7d9c-x2' })).toBe('bff-7d9c-x2');
    expect(shown(null)).toBe('(not set)');
    expect(shown(2097152)).toBe('2097152');
  });
});
