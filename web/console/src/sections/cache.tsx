import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { percent, reasons } from '../format';
import { cacheQuery, configQuery, fleetQuery, topQuery } from '../queries';
import { useAdmin } from '../session';
import type { TopEntry, TopLists } from '../types';
import { Loaded, Section } from '../ui';

/** The dashboard k8s/README.md ships ("Storefront BFF"); `admin.dashboard_url` links it. */
const DASHBOARD_UID = 'storefront-bff';

/** The hit ratio per route, the top lists of the last 5 minutes, and where the history is. */
export function CacheFigures() {
  const stats = useQuery(cacheQuery(useAdmin()));
  const [scope, setScope] = useState<'fleet' | 'replica'>('fleet');
  const scopeId = useId();
  return (
    <Section id="cache" title="Cache">
      <button type="button" onClick={() => void stats.refetch()}>
        Refresh the cache figures
      </button>
      <DashboardLink />
      <Loaded query={stats}>
        {(data) => (
          <table>
            <caption>Hit ratio per route, this replica ({percent(data.hitRatio)} overall)</caption>
            <thead>
              <tr>
                <th scope="col">Route</th>
                <th scope="col">Hit ratio</th>
                <th scope="col">Hits</th>
                <th scope="col">Misses</th>
                <th scope="col">Stale</th>
                <th scope="col">Entries</th>
              </tr>
            </thead>
            <tbody>
              {data.routes.map((route) => (
                <tr key={route.route}>
                  <th scope="row">{route.route}</th>
                  <td>{percent(route.hitRatio)}</td>
                  <td>{route.lookups.hit ?? 0}</td>
                  <td>{route.lookups.miss ?? 0}</td>
                  <td>{route.lookups.stale ?? 0}</td>
                  <td>{route.entries}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Loaded>
      <h3>The last 5 minutes</h3>
      <label htmlFor={scopeId}>Top lists of</label>{' '}
      <select id={scopeId} value={scope} onChange={(event) => setScope(event.target.value as 'fleet' | 'replica')}>
        <option value="fleet">the fleet (live replicas merged)</option>
        <option value="replica">this replica</option>
      </select>
      {scope === 'fleet' ? <FleetTopLists /> : <ReplicaTopLists />}
    </Section>
  );
}

function FleetTopLists() {
  const fleet = useQuery(fleetQuery(useAdmin()));
  return <Loaded query={fleet}>{(data) => <TopTables lists={data.topLists} />}</Loaded>;
}

function ReplicaTopLists() {
  const top = useQuery(topQuery(useAdmin()));
  return <Loaded query={top}>{(data) => <TopTables lists={data} />}</Loaded>;
}

function TopTables({ lists }: { lists: TopLists }) {
  return (
    <>
      <TopTable caption="Keys that missed most" entries={lists.keys} />
      <TopTable caption="Tags that missed most" entries={lists.tags} />
      <TopTable caption="Tags that hit most" entries={lists.hitTags} />
    </>
  );
}

function TopTable({ caption, entries }: { caption: string; entries: TopEntry[] }) {
  return (
    <div className="scroll">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Misses</th>
            <th scope="col">Hits</th>
            <th scope="col">Hit ratio</th>
            <th scope="col">Reasons</th>
          </tr>
        </thead>
        <tbody>
          {entries.length === 0 ? (
            <tr>
              <td colSpan={5}>None in the window.</td>
            </tr>
          ) : (
            entries.map((entry) => (
              <tr key={entry.name}>
                <th scope="row">{entry.name}</th>
                <td>{entry.misses}</td>
                <td>{entry.hits}</td>
                <td>{percent(entry.hitRatio)}</td>
                <td>{reasons(entry.reasons)}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/** History is Grafana's: a link when `admin.dashboard_url` is set, else the dashboard's name. */
function DashboardLink() {
  const config = useQuery(configQuery(useAdmin()));
  const url = config.data?.values['admin.dashboard_url']?.value;
  if (typeof url === 'string' && /^https?:\/\//.test(url)) {
    return (
      <p>
        History: <a href={url}>the Grafana dashboard “Storefront BFF”</a>
      </p>
    );
  }
  return (
    <p className="muted">
      History: the Grafana dashboard “Storefront BFF” (uid {DASHBOARD_UID}); set <code>admin.dashboard_url</code> to
      link it here.
    </p>
  );
}
