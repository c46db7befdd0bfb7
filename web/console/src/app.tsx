import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { adminClient, type AdminClient } from './api';
import { Audit } from './sections/audit';
import { CacheFigures } from './sections/cache';
import { FleetView } from './sections/fleet';
import { Inspector } from './sections/inspector';
import { PolicyEditor } from './sections/policy';
import { Purge } from './sections/purge';
import { SessionContext } from './session';
import { SignIn } from './sign-in';

/** One signed-in session: its client (with the token) and a query cache of its own. */
interface Session {
  client: AdminClient;
  queries: QueryClient;
}

function sessionFor(client: AdminClient): Session {
  const queries = new QueryClient({
    defaultOptions: {
      queries: {
        retry: false,
        refetchOnWindowFocus: false,
      },
    },
  });
  return { client, queries };
}

const PARTS = [
  ['fleet', 'Fleet'],
  ['cache', 'Cache'],
  ['inspector', 'Key inspector'],
  ['purge', 'Purge'],
  ['policy', 'Policy editor'],
  ['audit', 'Audit log'],
] as const;

export function App() {
  // The token lives here, in memory: a reload or closing the tab signs out.
  const [session, setSession] = useState<Session | null>(null);
  if (!session) {
    return (
      <main className="sign-in">
        <h1>BFF console</h1>
        <SignIn onSignedIn={(token) => setSession(sessionFor(adminClient(token)))} />
      </main>
    );
  }
  return (
    <SignedIn
      session={session}
      onSignOut={() => {
        session.queries.clear();
        setSession(null);
      }}
    />
  );
}

function SignedIn({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // focus moves to the console's heading, as a new page would put it
  useEffect(() => heading.current?.focus(), []);
  return (
    <SessionContext value={session.client}>
      <QueryClientProvider client={session.queries}>
        <header className="masthead">
          <h1 ref={heading} tabIndex={-1}>
            BFF console
          </h1>
          <nav aria-label="Console">
            <ul>
              {PARTS.map(([id, title]) => (
                <li key={id}>
                  <a href={`#${id}`}>{title}</a>
                </li>
              ))}
            </ul>
          </nav>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </header>
        <main>
          <FleetView />
          <CacheFigures />
          <Inspector />
          <Purge />
          <PolicyEditor />
          <Audit />
        </main>
      </QueryClientProvider>
    </SessionContext>
  );
}
