import { createStore } from '../../lib/store';

/**
 * The inventory warnings (by `warningKey`) the last cart answer carried: each was already shown.
 * Its own small module, so a cart read can forget them without loading the toast code.
 */
export const shownWarningsStore = createStore<ReadonlySet<string>>(new Set());
