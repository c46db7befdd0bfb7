import { useQuery } from '@tanstack/react-query';
import { AdminError } from '../api';
import { clock, percent, replicaName, shortId, shown } from '../format';
import { fleetQuery, overridesQuery } from '../queries';
import { useAdmin } from '../session';
import { Loaded, Section } from '../ui';

/** Heartbeats arrive every 5 s (`fleet.heartbeat_interval`): looking more often shows nothing new. */
const FLEET_REFRESH_MS = 5_000;

/** Every replica's last heartbeat, with build, config and override drift. */
export function FleetView() {
  const fleet = useQuery({ ...fleetQuery(useAdmin()), refetchInterval: FLEET_REFRESH_MS });
  return (
    <Section id="fleet" title="Fleet">
      <button type="button" onClick={() => void fleet.refetch()}>
        Refresh the fleet
      </button>
      <Loaded query={fleet}>
        {(data) => (
          <>
            {data.note ? <p className="muted">{data.note}</p> : null}
            <dl className="facts">
              <dt>Coordination</dt>
              <dd>{data.coordination}</dd>
              <dt>Build drift</dt>
              <dd className={data.drift.build ? 'warn' : undefined}>{data.drift.build ? 'yes' : 'none'}</dd>
              <dt>Config drift</dt>
              <dd className={data.drift.config ? 'warn' : undefined}>{data.drift.config ? 'yes' : 'none'}</dd>
            </dl>
            <div className="scroll">
              <table>
                <caption>Replicas ({data.replicas.length})</caption>
                <thead>
                  <tr>
                    <th scope="col">Replica</th>
                    <th scope="col">Build</th>
                    <th scope="col">Config</th>
                    <th scope="col">Override version</th>
                    <th scope="col">Hit ratio</th>
                    <th scope="col">L1 entries</th>
                    <th scope="col">Last seen</th>
                    <th scope="col">State</th>
                  </tr>
                </thead>
                <tbody>
                  {data.replicas.map((replica) => (
                    <tr key={replica.id}>
                      <th scope="row" title={replica.id}>
                        {replicaName(replica)}
                        {replica.pod ? ` (${shortId(replica.id)})` : ''}
                      </th>
                      <td>
                        {replica.build.version} · web {replica.build.web}
                      </td>
                      <td>{replica.config.version}</td>
                      <td>{shown(replica.overrideVersion)}</td>
                      <td>{percent(replica.hitRatio.ratio)}</td>
                      <td>{replica.l1.entries}</td>
                      <td>{clock(replica.lastSeenUnixMs)}</td>
                      <td>
                        {[replica.silent ? 'silent' : 'live', replica.self ? 'this one' : '']
                          .filter(Boolean)
                          .join(', ')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </Loaded>
      <OverrideDrift />
    </Section>
  );
}

/** The live overrides that differ from the file: to commit (export) or to roll back. */
function OverrideDrift() {
  const overrides = useQuery(overridesQuery(useAdmin()));
  if (overrides.error instanceof AdminError && overrides.error.status === 404) {
    return <p className="muted">This build has no live overrides.</p>;
  }
  return (
    <Loaded query={overrides}>
      {(data) =>
        data.drift.length === 0 ? (
          <p>No live override differs from the file.</p>
        ) : (
          <table>
            <caption>Overrides that differ from the file ({data.drift.length})</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">File</th>
                <th scope="col">Override</th>
              </tr>
            </thead>
            <tbody>
              {data.drift.map((line) => (
                <tr key={line.key}>
                  <th scope="row">{line.key}</th>
                  <td>{shown(line.file)}</td>
                  <td>{shown(line.override)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )
      }
    </Loaded>
  );
}
