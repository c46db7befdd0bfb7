import { describe, expect, it } from 'vitest';
import { HostHeaders } from './headers';

describe('HostHeaders: the render’s Headers', () => {
  it('reads names case-insensitively and joins appended values', () => {
    const headers = new HostHeaders({ 'Content-Type': 'application/json' });
    headers.append('Vary', 'Accept');
    headers.append('vary', 'Origin');
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('VARY')).toBe('Accept, Origin');
    expect(headers.has('Content-type')).toBe(true);
    expect(headers.get('missing')).toBeNull();
    headers.set('VARY', 'Cookie');
    expect(headers.get('vary')).toBe('Cookie');
    headers.delete('Vary');
    expect(headers.has('vary')).toBe(false);
  });

  it('iterates lower-cased names in order, and copies from pairs or other headers', () => {
    const headers = new HostHeaders([
      ['X-B', '2'],
      ['x-a', '1'],
      ['X-B', '3'],
    ]);
    expect([...headers]).toEqual([
      ['x-a', '1'],
      ['x-b', '2, 3'],
    ]);
    const copy = new HostHeaders(headers);
    copy.set('x-a', 'changed');
    expect(headers.get('x-a')).toBe('1');
    expect([...copy.keys()]).toEqual(['x-a', 'x-b']);
    expect([...copy.values()]).toEqual(['changed', '2, 3']);
    const seen: string[] = [];
    copy.forEach((value, key) => seen.push(`${key}=${value}`));
    expect(seen).toEqual(['x-a=changed', 'x-b=2, 3']);
  });
});
