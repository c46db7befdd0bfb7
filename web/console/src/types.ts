/** The admin API's answers, as far as the console reads them (docs/OPERATING.md has them whole). */

export interface HitRatioWindow {
  windowSeconds: number;
  lookups: number;
  served: number;
  ratio: number | null;
}

export interface TopEntry {
  name: string;
  misses: number;
  hits: number;
  error: number;
  hitRatio: number | null;
  reasons: Record<string, number>;
}

export interface TopLists {
  windowSeconds: number;
  keys: TopEntry[];
  tags: TopEntry[];
  hitTags: TopEntry[];
}

export interface Replica {
  id: string;
  pod: string | null;
  zone: string | null;
  build: { version: string; web: string; gitSha: string | null };
  config: { version: string; hash: string };
  startedUnixMs: number;
  lastReloadUnixMs: number | null;
  l1: { entries: number; bytes: number; capacityBytes: number };
  hitRatio: HitRatioWindow;
  lastSeenUnixMs: number;
  silent: boolean;
  self: boolean;
  /** Added by the live overrides (#49): the override version this replica applies. */
  overrideVersion?: number | null;
}

export interface Fleet {
  coordination: string;
  note: string | null;
  replicas: Replica[];
  drift: { build: boolean; config: boolean };
  silent: string[];
  topLists: TopLists;
}

export interface RouteFigures {
  route: string;
  entries: number;
  bytes: number;
  lookups: Record<string, number>;
  hitRatio: number;
  staleIfErrorRatio: number;
}

export interface CacheStats {
  hitRatio: number;
  routes: RouteFigures[];
}

export interface Setting {
  value: unknown;
  source: string;
}

export interface EffectiveConfig {
  values: Record<string, Setting | undefined>;
}

export interface L1State {
  present: boolean;
  state?: string;
  missReason?: string;
  sizeBytes?: number;
  purgeId?: string;
}

export interface ExplainedKey {
  key: string;
  kind: string;
  route: string;
  replicas: { replica: string; l1: L1State }[];
  l2: { present?: boolean; state?: string; missReason?: string } | null;
  purges: { purgeId: string; atUnixMs: number; mode: string; dropped: number }[];
}

export interface Explanation {
  keys: ExplainedKey[];
  missing: string[];
  reach: string;
}

export interface PurgeReceipt {
  id: string;
  mode: string;
  purged: number;
  l2Invalidated: number;
  fanOut: string;
  missing: string[];
  detail?: string;
  receipts: { replica: string; pod: string | null; l1Dropped: number; confirmedAfterMs: number }[];
}

export interface AuditEntry {
  atMs: number;
  actor: string;
  replica: string;
  method: string;
  route: string;
  status: number;
  result?: Record<string, unknown>;
}

export interface AuditLog {
  source: string;
  note?: string;
  entries: AuditEntry[];
}

/** The live overrides' API (issue #49, docs/OPERATING.md "Live overrides"). */
export type OverrideLayer = Record<string, string | number>;

export interface OverrideVersion {
  version: number;
  at: string;
  by: string;
  action: string;
  layer: OverrideLayer;
  expiresAt: string | null;
}

export interface Overrides {
  version: number;
  storage: 'redis' | 'process';
  layer: OverrideLayer;
  expiresAt: string | null;
  canary: { replica: string; version: number; layer: OverrideLayer } | null;
  history: OverrideVersion[];
  drift: { key: string; file: unknown; override: unknown }[];
}

export interface DiffLine {
  key: string;
  from: unknown;
  to: unknown;
}

export interface OverrideChange {
  version: number | null;
  dryRun: boolean;
  canary: string | null;
  storage: 'redis' | 'process';
  diff: DiffLine[];
  routes: string[];
  note?: string;
}

export interface OverrideDiff {
  from: number;
  to: number;
  diff: DiffLine[];
}
