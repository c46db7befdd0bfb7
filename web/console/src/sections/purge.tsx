import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type SubmitEvent } from 'react';
import type { Answer } from '../api';
import { list, replicaName } from '../format';
import { useAdmin } from '../session';
import type { PurgeReceipt } from '../types';
import { Outcome, Section } from '../ui';

/** A purge by tags, keys or everything, soft or hard, and its receipt from every replica. */
export function Purge() {
  const admin = useAdmin();
  const queries = useQueryClient();
  const [tags, setTags] = useState('');
  const [keys, setKeys] = useState('');
  const [everything, setEverything] = useState(false);
  const [mode, setMode] = useState<'hard' | 'soft'>('hard');
  const ids = { tags: useId(), keys: useId(), all: useId(), hint: useId() };
  const purge = useMutation({
    mutationFn: (body: unknown) => admin.post<PurgeReceipt>('/admin/cache/purge', body),
    onSettled: () => queries.invalidateQueries(),
  });

  const submit = (event: SubmitEvent<HTMLFormElement>) => {
    event.preventDefault();
    purge.mutate(everything ? { all: true, mode } : { tags: list(tags), keys: list(keys), mode });
  };

  return (
    <Section id="purge" title="Purge">
      <form onSubmit={submit} aria-label="Purge" noValidate>
        <p id={ids.hint} className="muted">
          One per line, or separated by commas.
        </p>
        <label htmlFor={ids.tags}>Tags</label>
        <textarea
          id={ids.tags}
          rows={2}
          value={tags}
          disabled={everything}
          aria-describedby={ids.hint}
          onChange={(event) => setTags(event.target.value)}
        />
        <label htmlFor={ids.keys}>Keys</label>
        <textarea
          id={ids.keys}
          rows={2}
          value={keys}
          disabled={everything}
          aria-describedby={ids.hint}
          onChange={(event) => setKeys(event.target.value)}
        />
        <div className="inline">
          <input
            id={ids.all}
            type="checkbox"
            checked={everything}
            onChange={(event) => setEverything(event.target.checked)}
          />
          <label htmlFor={ids.all}>Everything (every route, on every replica)</label>
        </div>
        <fieldset>
          <legend>Mode</legend>
          {(['hard', 'soft'] as const).map((choice) => (
            <label key={choice} className="inline">
              <input
                type="radio"
                name="purge-mode"
                value={choice}
                checked={mode === choice}
                onChange={() => setMode(choice)}
              />
              {choice === 'hard' ? 'Hard: remove the entries' : 'Soft: mark them stale, refresh in the background'}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={purge.isPending}>
          Purge
        </button>
      </form>
      <Outcome label="Purge receipt" error={purge.error}>
        {purge.data ? <Receipt answer={purge.data} /> : null}
      </Outcome>
    </Section>
  );
}

function Receipt({ answer }: { answer: Answer<PurgeReceipt> }) {
  const receipt = answer.body;
  const confirmed = answer.status === 200;
  return (
    <>
      <h3>Receipt</h3>
      <p className={confirmed ? undefined : 'warn'}>
        Purge {receipt.id}: {receipt.fanOut}, {receipt.receipts.length} replica
        {receipt.receipts.length === 1 ? '' : 's'} confirmed
        {receipt.missing.length > 0 ? `, ${String(receipt.missing.length)} missing` : ''}.{' '}
        {confirmed ? '' : `Not confirmed everywhere (${String(answer.status)}). ${receipt.detail ?? ''}`}
      </p>
      <dl className="facts">
        <dt>Mode</dt>
        <dd>{receipt.mode}</dd>
        <dt>Dropped here</dt>
        <dd>{receipt.purged}</dd>
        <dt>L2 counters moved</dt>
        <dd>{receipt.l2Invalidated}</dd>
      </dl>
      <table>
        <caption>Receipts</caption>
        <thead>
          <tr>
            <th scope="col">Replica</th>
            <th scope="col">L1 entries dropped</th>
            <th scope="col">Confirmed after</th>
          </tr>
        </thead>
        <tbody>
          {receipt.receipts.map((line) => (
            <tr key={line.replica}>
              <th scope="row" title={line.replica}>
                {replicaName({ id: line.replica, pod: line.pod })}
              </th>
              <td>{line.l1Dropped}</td>
              <td>{line.confirmedAfterMs} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
