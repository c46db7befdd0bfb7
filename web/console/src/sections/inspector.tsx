import { useMutation } from '@tanstack/react-query';
import { useId, useState, type SubmitEvent } from 'react';
import { AdminError } from '../api';
import { clock, replicaName, shortId } from '../format';
import { useAdmin } from '../session';
import type { Explanation, L1State } from '../types';
import { Outcome, Section } from '../ui';

/** Explain a key: where a page's or API answer's keys are cached, and why each would miss. */
export function Inspector() {
  const admin = useAdmin();
  const [url, setUrl] = useState('');
  const field = useId();
  const errorId = useId();
  const explain = useMutation({
    mutationFn: (target: string) => admin.get<Explanation>(`/admin/cache/explain?url=${encodeURIComponent(target)}`),
  });
  const fieldError = explain.error instanceof AdminError ? explain.error.fields.url : undefined;

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    explain.mutate(url.trim());
  };

  return (
    <Section id="inspector" title="Key inspector">
      <form onSubmit={submit} aria-label="Explain a URL" noValidate>
        <label htmlFor={field}>Page or API URL</label>
        <input
          id={field}
          type="text"
          placeholder="/products/summit-lr"
          value={url}
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={fieldError ? errorId : undefined}
          onChange={(event) => setUrl(event.target.value)}
        />
        <button type="submit" disabled={explain.isPending || url.trim() === ''}>
          Explain
        </button>
      </form>
      {fieldError ? (
        <p id={errorId} className="error">
          URL: {fieldError}
        </p>
      ) : null}
      <Outcome label="Explanation" error={explain.error}>
        {explain.data ? <ExplanationView explanation={explain.data} /> : null}
      </Outcome>
    </Section>
  );
}

function ExplanationView({ explanation }: { explanation: Explanation }) {
  return (
    <>
      <p>
        {explanation.keys.length} key{explanation.keys.length === 1 ? '' : 's'}, reach {explanation.reach}
        {explanation.missing.length > 0 ? `; no answer from ${explanation.missing.map(shortId).join(', ')}` : ''}.
      </p>
      <div className="scroll">
        <table>
          <caption>Keys and where they are cached</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Route</th>
              <th scope="col">L1 per replica</th>
              <th scope="col">L2</th>
              <th scope="col">Purges</th>
            </tr>
          </thead>
          <tbody>
            {explanation.keys.map((key) => (
              <tr key={key.key}>
                <th scope="row">{key.key}</th>
                <td>
                  {key.route} ({key.kind})
                </td>
                <td>
                  <ul className="plain">
                    {key.replicas.map((replica) => (
                      <li key={replica.replica}>
                        {replicaName({ id: replica.replica, pod: null })}: {l1Text(replica.l1)}
                      </li>
                    ))}
                  </ul>
                </td>
                <td>{key.l2 ? l1Text({ present: key.l2.present ?? false, ...key.l2 }) : 'no shared tier'}</td>
                <td>
                  {key.purges.length === 0
                    ? 'none'
                    : key.purges
                        .map((purge) => `${purge.mode} ${shortId(purge.purgeId)} at ${clock(purge.atUnixMs)}`)
                        .join('; ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function l1Text(state: L1State): string {
  if (state.present) return state.state ?? 'present';
  return `absent (${state.missReason ?? 'no reason recorded'})`;
}
