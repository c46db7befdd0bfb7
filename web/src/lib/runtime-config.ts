import { queryOptions, useQuery } from '@tanstack/react-query';
import { z } from 'zod/mini';
import { api, unwrap } from './api';
import { setTraceSampleRatio } from './trace-context';

/**
 * Public runtime configuration. The server injects it as JSON into
 * `<script id="runtime-config" type="application/json">` in index.html; when that is absent or
 * empty (`{}`, e.g. under the Vite dev server) it is fetched from `GET /api/config`.
 * Only public values live here: never a secret.
 */
export const runtimeConfigSchema = z.object({
  environment: z.string(),
  brandName: z.string(),
  supportEmail: z.string(),
  fflEmail: z.string(),
  proDealEmail: z.string(),
  captcha: z.object({ siteKey: z.string(), scriptUrl: z.string() }),
  payment: z.object({ loginId: z.string(), clientKey: z.string(), scriptUrl: z.string() }),
  maps: z.object({ tileUrl: z.string(), attribution: z.string() }),
  reviews: z.object({ appKey: z.string(), scriptUrl: z.string() }),
  analytics: z.object({ measurementId: z.string() }),
  builder: z.object({ buildUrl: z.string() }),
  telemetry: z.object({ traceSampleRatio: z.number(), rumSampleRatio: z.number() }),
});

export type RuntimeConfig = z.infer<typeof runtimeConfigSchema>;

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
    throw new RuntimeConfigError(`Invalid runtime config: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

export async function loadRuntimeConfig(
  doc: Document = document,
  signal?: AbortSignal,
): Promise<RuntimeConfig> {
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
