/** How the console writes figures and names: pure, and tested beside. */

/** `0.8734` → `87.3 %`; no lookups yet → `–` (a ratio of nothing is not 0 %). */
export function percent(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || Number.isNaN(ratio)) return '–';
  return `${(ratio * 100).toFixed(1)} %`;
}

/** A replica's id is a UUID: its first 8 characters tell the few replicas apart. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** A replica as people name it: its pod when it has one, else its short id. */
export function replicaName(replica: { id: string; pod: string | null }): string {
  return replica.pod ?? shortId(replica.id);
}

/** `{"cold": 3, "purged": 1}` → `cold 3, purged 1`, most frequent first. */
export function reasons(counts: Record<string, number>): string {
  const entries = Object.entries(counts).filter(([, count]) => count > 0);
  if (entries.length === 0) return '–';
  return entries
    .sort(([a, left], [b, right]) => right - left || a.localeCompare(b))
    .map(([reason, count]) => `${reason} ${String(count)}`)
    .join(', ');
}

/** Milliseconds since the epoch → a local time with seconds. */
export function clock(unixMs: number | string | null | undefined): string {
  if (unixMs === null || unixMs === undefined) return '–';
  const date = new Date(unixMs);
  return Number.isNaN(date.getTime()) ? String(unixMs) : date.toLocaleString();
}

/** Tags or keys as typed: one per line or separated by commas, blanks dropped. */
export function list(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Any value of a config or a diff as one short text (`null`: not set). */
export function shown(value: unknown): string {
  if (value === null || value === undefined) return '(not set)';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
