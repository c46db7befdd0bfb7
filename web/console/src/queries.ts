import { queryOptions } from '@tanstack/react-query';
import type { AdminClient } from './api';
import type { AuditLog, CacheStats, EffectiveConfig, Fleet, Overrides, TopLists } from './types';

/**
 * The console's reads, one per admin route. Keys name the route only: the client (and the token
 * in it) belongs to the session, whose query cache is dropped on sign-out, so a key never needs
 * to tell two tokens apart.
 */
const read = <T>(admin: AdminClient, path: string) =>
  queryOptions({
    queryKey: ['admin', path],
    queryFn: ({ signal }) => admin.get<T>(path, signal),
  });

export const fleetQuery = (admin: AdminClient) => read<Fleet>(admin, '/admin/fleet');
export const cacheQuery = (admin: AdminClient) => read<CacheStats>(admin, '/admin/cache');
export const topQuery = (admin: AdminClient) => read<TopLists>(admin, '/admin/cache/top');
export const configQuery = (admin: AdminClient) => read<EffectiveConfig>(admin, '/admin/config');
export const overridesQuery = (admin: AdminClient) => read<Overrides>(admin, '/admin/config/overrides');
export const auditQuery = (admin: AdminClient) => read<AuditLog>(admin, '/admin/audit?limit=50');
