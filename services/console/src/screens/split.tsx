import { useEffect, useState } from 'react';
import type { SplitRule, SplitSession, SuggestRulesOutput } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { OperationStatus, newKey, useQueued } from '../lib/operations';
import { href } from '../lib/router';
import { saveBlob } from '../viewer/downloads';

/** Split a bundle into records (page ranges), each downloadable as its own PDF. */
export function SplitTool({ kbId, fileId, filename }: { kbId: string; fileId: string; filename: string }) {
  const { client } = useConsole();
  const [rules, setRules] = useState<SplitRule[]>([]);
  const [error, setError] = useState<unknown>();
  const suggest = useQueued<SuggestRulesOutput>(client);
  const split = useQueued<SplitSession>(client);
  const suggested = suggest.run.output;
  useEffect(() => {
    if (suggested) setRules(suggested.rules);
  }, [suggested]);
  const patch = (k: number, p: Partial<SplitRule>) =>
    setRules((rs) => rs.map((r, i) => (i === k ? { ...r, ...p } : r)));

  async function download(startPage: number, endPage: number, title: string) {
    setError(undefined);
    try {
      const pdf = await client.split.download({ file_id: fileId, startPage, endPage, title });
      saveBlob(
        new Blob([pdf as Uint8Array<ArrayBuffer>], { type: 'application/pdf' }),
        `${title || filename.replace(/\.pdf$/i, '')}-p${startPage}-${endPage}.pdf`,
      );
    } catch (err) {
      setError(err);
    }
  }

  const session = split.run.output;
  return (
    <>
      <section aria-labelledby="rules-title">
        <h2 id="rules-title">Rules</h2>
        <p className="muted small">
          Optional: describe the kinds of document in the bundle. Without rules the model decides alone.
        </p>
        {rules.map((r, k) => (
          <div key={k} className="inline-form">
            <label>
              Name{' '}
              <input
                aria-label={`Rule ${k + 1} name`}
                value={r.name}
                onChange={(e) => patch(k, { name: e.target.value })}
              />
            </label>
            <label className="grow">
              Description{' '}
              <input
                aria-label={`Rule ${k + 1} description`}
                size={50}
                value={r.description}
                onChange={(e) => patch(k, { description: e.target.value })}
              />
            </label>
            <button type="button" onClick={() => setRules((rs) => rs.filter((_, i) => i !== k))}>
              Remove
            </button>
          </div>
        ))}
        <div className="actions">
          <button type="button" onClick={() => setRules((rs) => [...rs, { name: '', description: '' }])}>
            Add rule
          </button>
          <button
            type="button"
            disabled={suggest.run.running}
            onClick={() =>
              void suggest.start(() => client.split.suggestRules({ file_id: fileId, idempotency_key: newKey() }))
            }
          >
            Suggest rules (1 credit)
          </button>
          <button
            type="button"
            className="primary"
            disabled={split.run.running}
            onClick={() =>
              void split.start(() =>
                client.split.run({
                  file_id: fileId,
                  rules: rules.filter((r) => r.name.trim()),
                  idempotency_key: newKey(),
                }),
              )
            }
          >
            Split (1 credit)
          </button>
        </div>
      </section>
      <OperationStatus run={suggest.run} />
      <OperationStatus run={split.run} onCancel={() => void split.cancel()} />
      <ErrorBanner error={suggest.run.error ?? split.run.error ?? error} />
      {session && (
        <section aria-labelledby="records-title">
          <h2 id="records-title">Records</h2>
          <p className={`quality quality-${session.quality.status}`}>
            Quality <strong>{session.quality.status}</strong> · coverage {(session.quality.coverage * 100).toFixed(0)}%
            of {session.sourcePageCount} pages
            {session.quality.gapPages.length > 0 && ` · pages in no record: ${session.quality.gapPages.join(', ')}`}
            {session.quality.overlapPages.length > 0 &&
              ` · pages in two records: ${session.quality.overlapPages.join(', ')}`}
          </p>
          <div className="table-wrap">
            <table aria-label="Split records">
              <thead>
                <tr>
                  <th>Record</th>
                  <th>Type</th>
                  <th>Pages</th>
                  <th>Confidence</th>
                  <th>Why here</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {session.records.map((r) => (
                  <tr key={r.id} data-record-id={r.id}>
                    <td>{r.title}</td>
                    <td>{r.documentType}</td>
                    <td>
                      <a href={href(['kb', kbId, 'file', fileId], { page: r.startPage })}>
                        {r.startPage}–{r.endPage}
                      </a>
                    </td>
                    <td className="num">{r.confidence.toFixed(2)}</td>
                    <td className="small">{r.boundaryReason}</td>
                    <td>
                      <button type="button" onClick={() => void download(r.startPage, r.endPage, r.title)}>
                        Download PDF
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </>
  );
}
