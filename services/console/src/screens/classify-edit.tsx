import { useState } from 'react';
import type { ClassifyRunResponse, EditRunResponse } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { newKey } from '../lib/operations';
import { href } from '../lib/router';

/** Classify: classes written or suggested, then the document's class and each page's. */
export function ClassifyTool({ kbId, fileId }: { kbId: string; fileId: string }) {
  const { client } = useConsole();
  const [classes, setClasses] = useState('');
  const [guidelines, setGuidelines] = useState('');
  const [multi, setMulti] = useState(false);
  const [busy, setBusy] = useState('');
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<ClassifyRunResponse>();
  const list = classes
    .split(/[,\n]/)
    .map((c) => c.trim())
    .filter(Boolean);

  async function suggest() {
    setBusy('suggest');
    setError(undefined);
    try {
      const r = await client.classify.suggestClasses({
        file_id: fileId,
        guidelines: guidelines || undefined,
        idempotency_key: newKey(),
      });
      setClasses(r.classes.map((c) => c.name).join(', '));
    } catch (err) {
      setError(err);
    } finally {
      setBusy('');
    }
  }
  async function run() {
    setBusy('run');
    setError(undefined);
    try {
      setResult(
        await client.classify.run({ file_id: fileId, classes: list, multi_label: multi, idempotency_key: newKey() }),
      );
    } catch (err) {
      setError(err);
    } finally {
      setBusy('');
    }
  }

  return (
    <>
      <div className="search-form">
        <label className="grow">
          Classes (comma separated){' '}
          <input name="classes" value={classes} onChange={(e) => setClasses(e.target.value)} />
        </label>
        <label>
          Guidelines for suggestions{' '}
          <input name="guidelines" value={guidelines} onChange={(e) => setGuidelines(e.target.value)} />
        </label>
        <label className="check">
          <input type="checkbox" checked={multi} onChange={(e) => setMulti(e.target.checked)} /> Several classes may
          apply
        </label>
      </div>
      <div className="actions">
        <button type="button" disabled={Boolean(busy)} onClick={() => void suggest()}>
          {busy === 'suggest' ? 'Suggesting…' : 'Suggest classes (1 credit)'}
        </button>
        <button
          type="button"
          className="primary"
          disabled={Boolean(busy) || list.length === 0}
          onClick={() => void run()}
        >
          {busy === 'run' ? 'Classifying…' : 'Classify (1 credit)'}
        </button>
      </div>
      <ErrorBanner error={error} />
      {result && (
        <section aria-labelledby="class-title">
          <h2 id="class-title">
            Document: <span data-testid="document-class">{result.document.class}</span>
          </h2>
          <p>
            Confidence {result.document.confidence.toFixed(2)} · {result.document.rationale}
          </p>
          <div className="table-wrap">
            <table aria-label="Page classes">
              <thead>
                <tr>
                  <th>Page</th>
                  <th>Class</th>
                  <th>Confidence</th>
                </tr>
              </thead>
              <tbody>
                {result.pages.map((p) => (
                  <tr key={p.page_number}>
                    <td>
                      <a href={href(['kb', kbId, 'file', fileId], { page: p.page_number })}>{p.page_number}</a>
                    </td>
                    <td>{p.class}</td>
                    <td className="num">{p.confidence.toFixed(2)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="muted small">
            Model {result.modelId}
            {result.credit.debited ? ' · 1 credit' : ' · not charged again (same request)'}
          </p>
        </section>
      )}
    </>
  );
}

/** Edit: a proposal only, shown as a diff; nothing is ever applied to the file. */
export function EditTool({ fileId }: { fileId: string }) {
  const { client } = useConsole();
  const [prompt, setPrompt] = useState('');
  const [rules, setRules] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<EditRunResponse & { diff?: string | null }>();

  async function run() {
    setBusy(true);
    setError(undefined);
    try {
      const r = await client.edit.run({
        file_id: fileId,
        prompt,
        rules: rules
          .split('\n')
          .map((x) => x.trim())
          .filter(Boolean),
        idempotency_key: newKey(),
      });
      const stored = await client.edit.getProposal(r.proposal_id).catch(() => undefined);
      setResult({ ...r, diff: stored?.proposal.diff ?? null });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  const diff =
    result?.diff ??
    (typeof result?.proposal.diff === 'string'
      ? result.proposal.diff
      : typeof result?.proposal.patch === 'string'
        ? result.proposal.patch
        : undefined);
  return (
    <>
      <div className="stack">
        <label>
          What should change{' '}
          <textarea name="prompt" rows={3} value={prompt} onChange={(e) => setPrompt(e.target.value)} />
        </label>
        <label>
          Rules, one a line <textarea name="rules" rows={2} value={rules} onChange={(e) => setRules(e.target.value)} />
        </label>
        <div>
          <button type="button" className="primary" disabled={busy || !prompt.trim()} onClick={() => void run()}>
            {busy ? 'Proposing…' : 'Propose an edit (1 credit)'}
          </button>
        </div>
      </div>
      <ErrorBanner error={error} />
      {result && (
        <section aria-labelledby="proposal-title">
          <h2 id="proposal-title">Proposal</h2>
          <p className="notice">A proposal only: the file and its artifacts are unchanged.</p>
          {typeof result.proposal.summary === 'string' && (
            <p data-testid="proposal-summary">{result.proposal.summary}</p>
          )}
          {diff ? <Diff text={diff} /> : <p className="muted">The model proposes no change.</p>}
          <details>
            <summary>The proposal as the model returned it</summary>
            <pre className="json">{JSON.stringify(result.proposal, null, 2)}</pre>
          </details>
          <p className="muted small">
            Proposal {result.proposal_id} · model {result.modelId}
            {result.credit.debited ? ' · 1 credit' : ''}
          </p>
        </section>
      )}
    </>
  );
}

function Diff({ text }: { text: string }) {
  return (
    <pre className="diff" data-testid="diff">
      {text.split('\n').map((l, k) => (
        <span
          key={k}
          className={
            l.startsWith('+') && !l.startsWith('+++')
              ? 'add'
              : l.startsWith('-') && !l.startsWith('---')
                ? 'del'
                : l.startsWith('@@')
                  ? 'hunk'
                  : ''
          }
        >
          {l}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
