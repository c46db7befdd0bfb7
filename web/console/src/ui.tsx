import { useId, type ReactNode } from 'react';
import { describeError } from './api';

/** A part of the console: a landmark named by its heading, reachable from the contents. */
export function Section({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  const heading = useId();
  return (
    <section id={id} aria-labelledby={heading} className="section">
      <h2 id={heading}>{title}</h2>
      {children}
    </section>
  );
}

/**
 * Where an action's result is announced: a polite live region, present (empty) from the start
 * so screen readers pick up what is written into it; an error goes to an alert instead.
 */
export function Outcome({ label, error, children }: { label: string; error: unknown; children?: ReactNode }) {
  return (
    <>
      <div role="status" aria-label={label} className="outcome">
        {error ? null : children}
      </div>
      {error ? (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      ) : null}
    </>
  );
}

/** A query's loading and error states, then its content. */
export function Loaded<T>({
  query,
  children,
}: {
  query: { data: T | undefined; error: unknown; isPending: boolean };
  children: (data: T) => ReactNode;
}) {
  if (query.error) {
    return (
      <p role="alert" className="error">
        {describeError(query.error)}
      </p>
    );
  }
  if (query.isPending || query.data === undefined) return <p className="muted">Loading…</p>;
  return <>{children(query.data)}</>;
}
