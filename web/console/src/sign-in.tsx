import { useId, useState, type SubmitEvent } from 'react';
import { adminClient, describeError } from './api';

/**
 * The operator's admin token: checked with one read (`GET /admin/fleet`, scope `read`) before
 * the console opens, then kept in memory only (never localStorage, never a cookie).
 */
export function SignIn({ onSignedIn }: { onSignedIn: (token: string) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [checking, setChecking] = useState(false);
  const field = useId();
  const hint = useId();
  const errorId = useId();

  const submit = async (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    setChecking(true);
    setError(null);
    try {
      await adminClient(token.trim()).get('/admin/fleet');
      onSignedIn(token.trim());
    } catch (caught) {
      setError(caught);
      setChecking(false);
    }
  };

  return (
    <form onSubmit={(event) => void submit(event)} aria-label="Sign in" noValidate>
      <label htmlFor={field}>Admin token</label>
      <p id={hint} className="muted">
        Kept in this tab&apos;s memory only: reloading the page signs you out.
      </p>
      <input
        id={field}
        type="password"
        autoComplete="off"
        required
        value={token}
        aria-describedby={error ? `${hint} ${errorId}` : hint}
        aria-invalid={error ? true : undefined}
        onChange={(event) => setToken(event.target.value)}
      />
      <button type="submit" disabled={checking || token.trim() === ''}>
        {checking ? 'Signing in…' : 'Sign in'}
      </button>
      {error ? (
        <p role="alert" id={errorId} className="error">
          {describeError(error)}
        </p>
      ) : null}
    </form>
  );
}
