/** The visitor's session as the BFF reports it (the tokens themselves never reach the browser). */
export { anonymousSession, sessionKeys, sessionQuery, useSession } from './queries';
