/**
 * A checker for plain JSON records of strings and numbers, for the one value the entry bundle
 * validates (the runtime config). zod does the same, but its core is ~8 kB gzipped in the
 * JavaScript every page loads before it hydrates; forms, which need zod's richer rules, load it
 * lazily. Unknown keys are dropped, like a zod object.
 */

export interface Shape {
  readonly [key: string]: 'string' | 'number' | Shape;
}

/** The value a shape describes. */
export type ShapeValue<S extends Shape> = {
  -readonly [K in keyof S]: S[K] extends 'string'
    ? string
    : S[K] extends 'number'
      ? number
      : S[K] extends Shape
        ? ShapeValue<S[K]>
        : never;
};

export type ShapeResult<T> = { success: true; data: T } | { success: false; error: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function check(shape: Shape, value: unknown, path: string): { data: Record<string, unknown> } | { error: string } {
  if (!isRecord(value)) return { error: `${path || 'the value'}: expected an object` };
  const data: Record<string, unknown> = {};
  for (const [key, expected] of Object.entries(shape)) {
    const at = path ? `${path}.${key}` : key;
    const field = value[key];
    if (typeof expected === 'string') {
      const ok =
        expected === 'number' ? typeof field === 'number' && Number.isFinite(field) : typeof field === expected;
      if (!ok) return { error: `${at}: expected a ${expected}` };
      data[key] = field;
    } else {
      const nested = check(expected, field, at);
      if ('error' in nested) return nested;
      data[key] = nested.data;
    }
  }
  return { data };
}

/** A parser with zod's `safeParse` contract, for a shape. */
export function jsonShape<S extends Shape>(shape: S) {
  return {
    safeParse(value: unknown): ShapeResult<ShapeValue<S>> {
      const result = check(shape, value, '');
      return 'error' in result
        ? { success: false, error: result.error }
        : { success: true, data: result.data as ShapeValue<S> };
    },
  };
}
