import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import type { PublicConfig } from '../api/types';
import { runtimeConfig } from '../test/fixtures';
import { server } from '../test/server';
import {
  loadRuntimeConfig,
  readEmbeddedRuntimeConfig,
  type RuntimeConfig,
  runtimeConfigSchema,
  RuntimeConfigError,
} from './runtime-config';

function embed(text: string | null) {
  document.getElementById('runtime-config')?.remove();
  if (text === null) return;
  const script = document.createElement('script');
  script.id = 'runtime-config';
  script.type = 'application/json';
  script.textContent = text;
  document.head.append(script);
}

afterEach(() => {
  embed(null);
});

it("accepts what the contract's PublicConfig allows", () => {
  // the validator may be more lenient than the contract (`environment` is any string), never stricter
  expectTypeOf<PublicConfig>().toExtend<RuntimeConfig>();
  expect(runtimeConfigSchema.safeParse(runtimeConfig).success).toBe(true);
});

describe('runtime config', () => {
  it('reads the JSON embedded in #runtime-config without calling the API', async () => {
    const embedded = { ...runtimeConfig, brandName: 'Embedded Arms' };
    embed(JSON.stringify(embedded));
    server.use(
      http.get('/api/config', () => {
        throw new Error('must not be called');
      }),
    );

    expect(readEmbeddedRuntimeConfig()).toEqual(embedded);
    await expect(loadRuntimeConfig()).resolves.toEqual(embedded);
  });

  it.each([
    ['the placeholder is not replaced', '{}'],
    ['the element is empty', ''],
    ['the element is missing', null],
    ['the JSON is malformed', '{"brandName":'],
  ])('falls back to GET /api/config when %s', async (_case, text) => {
    embed(text);
    await expect(loadRuntimeConfig()).resolves.toEqual(runtimeConfig);
  });

  it('rejects a config of the wrong shape', async () => {
    server.use(http.get('/api/config', () => HttpResponse.json({ brandName: 'Only a name' })));
    await expect(loadRuntimeConfig()).rejects.toBeInstanceOf(RuntimeConfigError);
  });

  it('ignores unknown keys', async () => {
    embed(JSON.stringify({ ...runtimeConfig, extra: 'ignored' }));
    await expect(loadRuntimeConfig()).resolves.toEqual(runtimeConfig);
  });
});
