/** The policy editor's pure part: which keys can be overridden, and the request a change sends. */

/** The cache policies a live override can change (`[cache.<route>]` in config/bff.toml). */
export const POLICY_ROUTES = ['pages', 'product', 'collection', 'search', 'prices', 'tiles'] as const;
export const POLICY_FIELDS = [
  'ttl',
  'stale_while_revalidate',
  'stale_if_error',
  'negative_ttl',
  'max_entry_bytes',
] as const;

/** Every key, spelled as in the TOML: `cache.product.ttl`. */
export const POLICY_KEYS: readonly string[] = POLICY_ROUTES.flatMap((route) =>
  POLICY_FIELDS.map((field) => `cache.${route}.${field}`),
);

export interface ChangeForm {
  key: string;
  value: string;
  /** Remove this key's override (back to the file's value) instead of setting it. */
  unset: boolean;
  /** e.g. `1h`; blank: no expiry. */
  expiresIn: string;
  /** A replica id: the change goes there first; blank: the whole fleet. */
  canary: string;
}

export interface OverrideRequest {
  set: Record<string, string | number>;
  unset: string[];
  expiresIn?: string;
  canary?: string;
  dryRun: boolean;
}

/**
 * The body of `POST /admin/config/overrides`. Values go as typed (`"30s"`), except
 * `max_entry_bytes`, a number in the TOML: a whole number is sent as one, anything else as
 * typed, so the BFF's 422 names the key rather than the console guessing.
 */
export function overrideRequest(form: ChangeForm, dryRun: boolean): OverrideRequest {
  const value = form.value.trim();
  const numeric = form.key.endsWith('.max_entry_bytes') && /^\d+$/.test(value);
  const request: OverrideRequest = form.unset
    ? { set: {}, unset: [form.key], dryRun }
    : { set: { [form.key]: numeric ? Number(value) : value }, unset: [], dryRun };
  if (form.expiresIn.trim()) request.expiresIn = form.expiresIn.trim();
  if (form.canary) request.canary = form.canary;
  return request;
}
