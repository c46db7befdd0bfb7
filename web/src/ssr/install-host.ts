import { installHost } from './host';

/**
 * Installed before any app module runs: the app reads `location` and builds `Request`s while its
 * modules load. Imported first by the server entry, so the bundle evaluates it first.
 */
export const host = installHost();
