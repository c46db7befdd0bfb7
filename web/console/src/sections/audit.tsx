import { useQuery } from '@tanstack/react-query';
import { clock, shortId } from '../format';
import { auditQuery } from '../queries';
import { useAdmin } from '../session';
import { Loaded, Section } from '../ui';

/** The newest admin actions: who did what, where, and what it answered. */
export function Audit() {
  const audit = useQuery(auditQuery(useAdmin()));
  return (
    <Section id="audit" title="Audit log">
      <button type="button" onClick={() => void audit.refetch()}>
        Refresh the audit log
      </button>
      <Loaded query={audit}>
        {(data) => (
          <>
            {data.note ? <p className="muted">{data.note}</p> : null}
            <div className="scroll">
              <table>
                <caption>The last {data.entries.length} admin actions (newest first)</caption>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Token</th>
                    <th scope="col">Action</th>
                    <th scope="col">Status</th>
                    <th scope="col">Replica</th>
                    <th scope="col">Result</th>
                  </tr>
                </thead>
                <tbody>
                  {data.entries.map((entry, index) => (
                    // records have no id; newest first, so index and time together are stable
                    <tr key={`${String(entry.atMs)}-${String(index)}`}>
                      <td>{clock(entry.atMs)}</td>
                      <th scope="row">{entry.actor}</th>
                      <td>
                        {entry.method} {entry.route}
                      </td>
                      <td>{entry.status}</td>
                      <td title={entry.replica}>{shortId(entry.replica)}</td>
                      <td>{summary(entry.result)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </Loaded>
    </Section>
  );
}

/** A result's top-level scalars, as the audit log keeps them. */
function summary(result: Record<string, unknown> | undefined): string {
  if (!result) return '';
  return Object.entries(result)
    .filter(([, value]) => value !== null && typeof value !== 'object')
    .map(([key, value]) => `${key}: ${String(value as string | number | boolean)}`)
    .join(', ');
}
