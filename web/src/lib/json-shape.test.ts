import { describe, expect, expectTypeOf, it } from 'vitest';
import { jsonShape } from './json-shape';

const parser = jsonShape({ name: 'string', ratio: 'number', nested: { url: 'string' } });

describe('jsonShape', () => {
  it('accepts the shape and drops unknown keys, at every level', () => {
    const result = parser.safeParse({ name: 'a', ratio: 0.5, extra: true, nested: { url: '/x', more: 1 } });
    expect(result).toEqual({ success: true, data: { name: 'a', ratio: 0.5, nested: { url: '/x' } } });
    if (result.success)
      expectTypeOf(result.data).toEqualTypeOf<{ name: string; ratio: number; nested: { url: string } }>();
  });

  it.each([
    [null, 'the value: expected an object'],
    [[], 'the value: expected an object'],
    [{ ratio: 1, nested: { url: '' } }, 'name: expected a string'],
    [{ name: 'a', ratio: '1', nested: { url: '' } }, 'ratio: expected a number'],
    [{ name: 'a', ratio: Number.NaN, nested: { url: '' } }, 'ratio: expected a number'],
    [{ name: 'a', ratio: 1, nested: 'x' }, 'nested: expected an object'],
    [{ name: 'a', ratio: 1, nested: { url: 3 } }, 'nested.url: expected a string'],
  ])('refuses %j, naming the field', (value, error) => {
    expect(parser.safeParse(value)).toEqual({ success: false, error });
  });
});
