import { queryOptions, useQuery } from '@tanstack/react-query';
import { api, unwrap } from './api';
import { jsonShape, type ShapeValue } from './json-shape';
import { setTraceSampleRatio } from './trace-context';

/**
 * Public runtime configuration. The server injects it as JSON into
 * `<script id="runtime-config" type="application/json">` in index.html; when that is absent or
 * empty (`{}`, e.g. under the Vite dev server) it is fetched from `GET /api/config`.
 * Only public values live here: never a secret.
 */
const runtimeConfigShape = {
  environment: 'string',
  brandName: 'string',
  supportEmail: 'string',
  fflEmail: 'string',
  proDealEmail: 'string',
  captcha: { siteKey: 'string', scriptUrl: 'string' },
  payment: { loginId: 'string', clientKey: 'string', scriptUrl: 'string' },
  maps: { tileUrl: 'string', attribution: 'string' },
  reviews: { appKey: 'string', scriptUrl: 'string' },
  analytics: { measurementId: 'string' },
  builder: { buildUrl: 'string' },
  telemetry: { traceSampleRatio: 'number', rumSampleRatio: 'number' },
} as const;

/** The config's validator (a small JSON shape check, not zod: this module is in the entry bundle). */
export const runtimeConfigSchema = jsonShape(runtimeConfigShape);

export type RuntimeConfig = ShapeValue<typeof runtimeConfigShape>;

export const RUNTIME_CONFIG_ELEMENT_ID = 'runtime-config';

export class RuntimeConfigError extends Error {
  override readonly name = 'RuntimeConfigError';
}

/**
 * The embedded config, or null when the element is missing, empty or `{}`.
 * Embedded JSON that is present but malformed or of the wrong shape is also treated as absent,
 * so the API copy gets a chance.
 */
export function readEmbeddedRuntimeConfig(doc: Document = document): RuntimeConfig | null {
  const text = doc.getElementById(RUNTIME_CONFIG_ELEMENT_ID)?.textContent.trim() ?? '';
  if (text === '' || text === '{}') return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = runtimeConfigSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

export async function fetchRuntimeConfig(signal?: AbortSignal): Promise<RuntimeConfig> {
  const json: unknown = await unwrap(api.GET('/api/config', signal ? { signal } : {}));
  const parsed = runtimeConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new RuntimeConfigError(`Invalid runtime config: ${parsed.error}`);
  }
  return parsed.data;
}

export async function loadRuntimeConfig(doc: Document = document, signal?: AbortSignal): Promise<RuntimeConfig> {
  const config = readEmbeddedRuntimeConfig(doc) ?? (await fetchRuntimeConfig(signal));
  setTraceSampleRatio(config.telemetry.traceSampleRatio);
  return config;
}

export const runtimeConfigQuery = queryOptions({
  queryKey: ['runtime-config'] as const,
  queryFn: ({ signal }) => loadRuntimeConfig(document, signal),
  staleTime: Infinity,
  gcTime: Infinity,
});

/** The runtime config, or undefined while it loads (or if it cannot be loaded). */
export function useRuntimeConfig(): RuntimeConfig | undefined {
  return useQuery(runtimeConfigQuery).data;
}
