import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type SubmitEvent } from 'react';
import { AdminError } from '../api';
import { clock, replicaName, shortId, shown } from '../format';
import { POLICY_KEYS, overrideRequest, type ChangeForm } from '../policy';
import { useAdmin } from '../session';
import { configQuery, fleetQuery, overridesQuery } from '../queries';
import type { DiffLine, OverrideChange, OverrideDiff, Overrides } from '../types';
import { Loaded, Outcome, Section } from '../ui';

const OVERRIDES = '/admin/config/overrides';

/** A write to the overrides and how the console names it in its result. */
interface Write {
  path: string;
  body: unknown;
  what: string;
}

/**
 * Live overrides of the cache policies: the current version and its history, a change (dry run
 * first, to a canary or the fleet), promotion of a canary, rollback, diff and export.
 */
export function PolicyEditor() {
  const admin = useAdmin();
  const queries = useQueryClient();
  const overrides = useQuery(overridesQuery(admin));
  const write = useMutation({
    mutationFn: async (request: Write) => ({
      request,
      answer: (await admin.post<OverrideChange>(request.path, request.body)).body,
    }),
    // every replica's override version, the config in force and the audit log moved with it
    onSettled: () => queries.invalidateQueries(),
  });

  if (overrides.error instanceof AdminError && overrides.error.status === 404) {
    return (
      <Section id="policy" title="Policy editor">
        <p>This build has no live overrides (GET {OVERRIDES} answered 404).</p>
      </Section>
    );
  }
  return (
    <Section id="policy" title="Policy editor">
      <Loaded query={overrides}>
        {(data) => <Current overrides={data} onWrite={(request) => write.mutate(request)} busy={write.isPending} />}
      </Loaded>
      <ChangeEditor onWrite={(request) => write.mutate(request)} busy={write.isPending} />
      <Outcome label="Policy change result" error={write.error}>
        {write.data ? <ChangeResult what={write.data.request.what} change={write.data.answer} /> : null}
      </Outcome>
      <Rollback onWrite={(request) => write.mutate(request)} busy={write.isPending} />
      <Compare />
      <Export />
    </Section>
  );
}

function Current({
  overrides,
  onWrite,
  busy,
}: {
  overrides: Overrides;
  onWrite: (request: Write) => void;
  busy: boolean;
}) {
  const keys = Object.entries(overrides.layer);
  return (
    <>
      <h3>In force</h3>
      <dl className="facts">
        <dt>Version</dt>
        <dd>{overrides.version}</dd>
        <dt>Stored</dt>
        <dd className={overrides.storage === 'process' ? 'warn' : undefined}>
          {overrides.storage === 'redis'
            ? 'in Redis, for the whole fleet'
            : 'in this process only: lost on restart (no Redis)'}
        </dd>
        <dt>Expires</dt>
        <dd>{overrides.expiresAt ? clock(overrides.expiresAt) : 'never'}</dd>
      </dl>
      {keys.length === 0 ? (
        <p>No override: every policy is the file&apos;s.</p>
      ) : (
        <LayerTable caption={`Overrides of version ${String(overrides.version)}`} layer={overrides.layer} />
      )}
      {overrides.canary ? (
        <div className="callout">
          <p>
            Canary: version {overrides.canary.version} is on replica {shortId(overrides.canary.replica)} only.
          </p>
          <LayerTable
            caption={`Overrides of canary version ${String(overrides.canary.version)}`}
            layer={overrides.canary.layer}
          />
          <button
            type="button"
            disabled={busy}
            onClick={() => onWrite({ path: `${OVERRIDES}/promote`, body: {}, what: 'Promoted to the fleet' })}
          >
            Promote the canary to the fleet
          </button>
        </div>
      ) : null}
      <div className="scroll">
        <table>
          <caption>History (newest first)</caption>
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">When</th>
              <th scope="col">By</th>
              <th scope="col">Action</th>
              <th scope="col">Overrides</th>
            </tr>
          </thead>
          <tbody>
            {overrides.history.map((version) => (
              <tr key={version.version}>
                <th scope="row">{version.version}</th>
                <td>{clock(version.at)}</td>
                <td>{version.by}</td>
                <td>{version.action}</td>
                <td>
                  {Object.entries(version.layer)
                    .map(([key, value]) => `${key} = ${shown(value)}`)
                    .join(', ') || 'none'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function LayerTable({ caption, layer }: { caption: string; layer: Record<string, unknown> }) {
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(layer).map(([key, value]) => (
          <tr key={key}>
            <th scope="row">{key}</th>
            <td>{shown(value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One key's change: dry run (diff and routes, nothing changes) or apply, to a canary or the fleet. */
function ChangeEditor({ onWrite, busy }: { onWrite: (request: Write) => void; busy: boolean }) {
  const config = useQuery(configQuery(useAdmin()));
  const fleet = useQuery(fleetQuery(useAdmin()));
  const [form, setForm] = useState<ChangeForm>({
    key: 'cache.product.ttl',
    value: '',
    unset: false,
    expiresIn: '',
    canary: '',
  });
  const ids = {
    key: useId(),
    value: useId(),
    inForce: useId(),
    unset: useId(),
    expires: useId(),
    expiresHint: useId(),
    canary: useId(),
  };
  const inForce = config.data?.values[form.key];
  const live = (fleet.data?.replicas ?? []).filter((replica) => !replica.silent);

  const send = (dryRun: boolean) => {
    const target = form.canary ? `canary ${shortId(form.canary)}` : 'the fleet';
    onWrite({
      path: OVERRIDES,
      body: overrideRequest(form, dryRun),
      what: dryRun ? 'Dry run: nothing changed' : `Applied to ${target}`,
    });
  };
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    send(false);
  };

  return (
    <form onSubmit={submit} aria-label="Change a policy" noValidate>
      <h3>Change a policy</h3>
      <label htmlFor={ids.key}>Key</label>
      <select id={ids.key} value={form.key} onChange={(event) => setForm({ ...form, key: event.target.value })}>
        {POLICY_KEYS.map((key) => (
          <option key={key} value={key}>
            {key}
          </option>
        ))}
      </select>
      <p id={ids.inForce} className="muted">
        In force: {inForce ? `${shown(inForce.value)} (${inForce.source})` : '…'}
      </p>
      <label htmlFor={ids.value}>New value</label>
      <input
        id={ids.value}
        type="text"
        placeholder="30s"
        value={form.value}
        disabled={form.unset}
        aria-describedby={ids.inForce}
        onChange={(event) => setForm({ ...form, value: event.target.value })}
      />
      <div className="inline">
        <input
          id={ids.unset}
          type="checkbox"
          checked={form.unset}
          onChange={(event) => setForm({ ...form, unset: event.target.checked })}
        />
        <label htmlFor={ids.unset}>Remove this key&apos;s override (back to the file)</label>
      </div>
      <label htmlFor={ids.expires}>Expires in (optional)</label>
      <input
        id={ids.expires}
        type="text"
        placeholder="1h"
        value={form.expiresIn}
        aria-describedby={ids.expiresHint}
        onChange={(event) => setForm({ ...form, expiresIn: event.target.value })}
      />
      <p id={ids.expiresHint} className="muted">
        An expired override is removed on every replica.
      </p>
      <label htmlFor={ids.canary}>Apply to</label>
      <select
        id={ids.canary}
        value={form.canary}
        onChange={(event) => setForm({ ...form, canary: event.target.value })}
      >
        <option value="">the whole fleet</option>
        {live.map((replica) => (
          <option key={replica.id} value={replica.id}>
            canary: {replicaName(replica)}
          </option>
        ))}
      </select>
      <div className="actions">
        <button type="button" disabled={busy} onClick={() => send(true)}>
          Dry run
        </button>
        <button type="submit" disabled={busy}>
          Apply
        </button>
      </div>
    </form>
  );
}

function ChangeResult({ what, change }: { what: string; change: OverrideChange }) {
  return (
    <>
      <p>
        {what}
        {change.version === null ? '' : `: version ${String(change.version)}`}
        {change.canary ? ` on replica ${shortId(change.canary)} only` : ''}.
        {change.routes.length > 0 ? ` Routes affected: ${change.routes.join(', ')}.` : ''}
        {change.note ? ` ${change.note}` : ''}
      </p>
      <DiffTable caption="Diff" diff={change.diff} />
    </>
  );
}

function DiffTable({ caption, diff }: { caption: string; diff: DiffLine[] }) {
  if (diff.length === 0) return <p>No difference.</p>;
  return (
    <table>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Key</th>
          <th scope="col">From</th>
          <th scope="col">To</th>
        </tr>
      </thead>
      <tbody>
        {diff.map((line) => (
          <tr key={line.key}>
            <th scope="row">{line.key}</th>
            <td>{shown(line.from)}</td>
            <td>{shown(line.to)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Back to the previous version, or to a named one: one call. */
function Rollback({ onWrite, busy }: { onWrite: (request: Write) => void; busy: boolean }) {
  const [version, setVersion] = useState('');
  const field = useId();
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    const to = version.trim();
    onWrite({
      path: `${OVERRIDES}/rollback`,
      body: to ? { to: Number(to) } : {},
      what: to ? `Rolled back to version ${to}` : 'Rolled back to the previous version',
    });
  };
  return (
    <form onSubmit={submit} aria-label="Roll back" noValidate>
      <h3>Roll back</h3>
      <label htmlFor={field}>To version (blank: the previous one)</label>
      <input
        id={field}
        type="number"
        min={0}
        inputMode="numeric"
        value={version}
        onChange={(event) => setVersion(event.target.value)}
      />
      <button type="submit" disabled={busy}>
        Roll back
      </button>
    </form>
  );
}

/** The diff between the current version and a named one. */
function Compare() {
  const admin = useAdmin();
  const [version, setVersion] = useState('');
  const field = useId();
  const diff = useMutation({
    mutationFn: (named: string) => admin.get<OverrideDiff>(`${OVERRIDES}/diff?version=${encodeURIComponent(named)}`),
  });
  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    diff.mutate(version.trim());
  };
  return (
    <>
      <form onSubmit={submit} aria-label="Compare versions" noValidate>
        <h3>Compare</h3>
        <label htmlFor={field}>Compare the current version with version</label>
        <input
          id={field}
          type="number"
          min={0}
          inputMode="numeric"
          value={version}
          onChange={(event) => setVersion(event.target.value)}
        />
        <button type="submit" disabled={diff.isPending || version.trim() === ''}>
          Show the diff
        </button>
      </form>
      <Outcome label="Version diff" error={diff.error}>
        {diff.data ? (
          <DiffTable
            caption={`From version ${String(diff.data.from)} to ${String(diff.data.to)}`}
            diff={diff.data.diff}
          />
        ) : null}
      </Outcome>
    </>
  );
}

/** The overrides as a TOML patch, to commit to config/bff.toml so they stop being drift. */
function Export() {
  const admin = useAdmin();
  const patch = useMutation({ mutationFn: () => admin.getText(`${OVERRIDES}/export`) });
  return (
    <>
      <h3>Export</h3>
      <button type="button" disabled={patch.isPending} onClick={() => patch.mutate()}>
        Export as a TOML patch
      </button>
      <Outcome label="TOML patch" error={patch.error}>
        {patch.data !== undefined ? <pre>{patch.data || '# no override'}</pre> : null}
      </Outcome>
    </>
  );
}
