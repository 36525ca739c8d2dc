import { useEffect, useState } from 'react';
import type { Citation, ExtractRunOutput, FieldListSchema, ResultNode, SchemaField, SchemaGenerateOutput } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { OperationStatus, newKey, useQueued } from '../lib/operations';
import { href } from '../lib/router';
import { useAsync } from '../lib/use-async';

const TYPES = ['string', 'number', 'boolean', 'date', 'object', 'array', 'table'];
const blank = (): SchemaField => ({ name: '', type: 'string', description: '', required: false });

/**
 * Extraction on one parsed file: a field list (written here, picked from the saved schemas, or
 * generated from the document), run as a queued operation; every value links to its citation's box.
 */
export function ExtractTool({ kbId, fileId }: { kbId: string; fileId: string }) {
  const { client } = useConsole();
  const saved = useAsync((signal) => client.extract.listSchemas({ signal }), [client]);
  const [fields, setFields] = useState<SchemaField[]>([blank()]);
  const [title, setTitle] = useState('');
  const [schemaId, setSchemaId] = useState('');
  const [error, setError] = useState<unknown>();
  const [note, setNote] = useState('');
  const extraction = useQueued<ExtractRunOutput>(client);
  const generation = useQueued<SchemaGenerateOutput>(client);

  const schema = (): FieldListSchema => ({ version: 1, title: title || undefined, fields: fields.filter((f) => f.name.trim()) });
  const patch = (k: number, p: Partial<SchemaField>) => setFields((fs) => fs.map((f, i) => (i === k ? { ...f, ...p } : f)));

  function pick(id: string) {
    setSchemaId(id);
    const s = saved.data?.schemas.find((x) => x.id === id);
    if (s) { setFields(s.schema.fields.length ? s.schema.fields : [blank()]); setTitle(s.title); }
  }
  async function save() {
    setError(undefined);
    try {
      const r = await client.extract.createSchema({ schema: schema(), file_id: fileId });
      setSchemaId(r.schema.id);
      setNote(`Saved as "${r.schema.title}".`);
      saved.reload();
    } catch (err) { setError(err); }
  }
  async function generate() {
    setNote('');
    await generation.start(() => client.extract.generateSchema({ file_id: fileId, idempotency_key: newKey() }));
  }
  const generated = generation.run.output;
  const reloadSaved = saved.reload;
  useEffect(() => {
    if (!generated) return;
    setSchemaId(generated.schema_id);
    setFields(generated.schema.fields.length ? generated.schema.fields : [blank()]);
    setTitle(generated.schema.title ?? '');
    setNote(`Generated for a ${generated.documentType}: ${generated.schemaRationale}`);
    reloadSaved();
  }, [generated, reloadSaved]);
  const run = () => extraction.start(() => client.extract.run({ file_id: fileId, schema: schema(), idempotency_key: newKey() }));

  return (
    <>
      <section aria-labelledby="schema-title">
        <h2 id="schema-title">Schema</h2>
        <div className="toolbar">
          <label>Saved schemas <select name="saved-schema" value={schemaId} onChange={(e) => pick(e.target.value)}>
            <option value="">(write one here)</option>
            {saved.data?.schemas.map((s) => <option key={s.id} value={s.id}>{s.title}</option>)}
          </select></label>
          <label>Title <input name="schema-title" value={title} onChange={(e) => setTitle(e.target.value)} /></label>
          <button type="button" onClick={() => void generate()} disabled={generation.run.running}>Generate from this document</button>
          <button type="button" onClick={() => void save()}>Save schema</button>
        </div>
        <OperationStatus run={generation.run} />
        <ErrorBanner error={generation.run.error ?? saved.error ?? error} />
        {note && <p className="notice" role="status">{note}</p>}
        <div className="table-wrap">
          <table aria-label="Fields">
            <thead><tr><th>Name</th><th>Type</th><th>Description</th><th>Required</th><th /></tr></thead>
            <tbody>
              {fields.map((f, k) => (
                <tr key={k}>
                  <td><input aria-label={`Field ${k + 1} name`} value={f.name} onChange={(e) => patch(k, { name: e.target.value })} /></td>
                  <td><select aria-label={`Field ${k + 1} type`} value={f.type} onChange={(e) => patch(k, { type: e.target.value })}>
                    {TYPES.map((t) => <option key={t}>{t}</option>)}
                  </select>{f.children?.length ? <span className="muted small"> {f.children.length} sub-fields</span> : null}</td>
                  <td><input aria-label={`Field ${k + 1} description`} value={f.description ?? ''} onChange={(e) => patch(k, { description: e.target.value })} size={40} /></td>
                  <td><input type="checkbox" aria-label={`Field ${k + 1} required`} checked={Boolean(f.required)} onChange={(e) => patch(k, { required: e.target.checked })} /></td>
                  <td><button type="button" aria-label={`Remove field ${k + 1}`} onClick={() => setFields((fs) => fs.filter((_, i) => i !== k))}>Remove</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="actions">
          <button type="button" onClick={() => setFields((fs) => [...fs, blank()])}>Add field</button>
          <button type="button" className="primary" disabled={extraction.run.running || !schema().fields.length} onClick={() => void run()}>Run extraction (1 credit)</button>
        </div>
      </section>
      <OperationStatus run={extraction.run} onCancel={() => void extraction.cancel()} />
      <ErrorBanner error={extraction.run.error} />
      {extraction.run.output && <ExtractionResult kbId={kbId} fileId={fileId} out={extraction.run.output} />}
    </>
  );
}

function ExtractionResult({ kbId, fileId, out }: { kbId: string; fileId: string; out: ExtractRunOutput }) {
  const rows: ResultNode[] = [];
  const walk = (ns: ResultNode[]) => { for (const n of ns) { rows.push(n); walk(n.children ?? []); } };
  walk(out.resultTree);
  return (
    <section aria-labelledby="result-title">
      <h2 id="result-title">Result</h2>
      <p className="muted small">Model {out.modelId} · {out.metrics.selectedSegmentCount} of {out.metrics.segmentCount} segments used · {out.citations.length} citations</p>
      <div className="table-wrap">
        <table aria-label="Extracted values">
          <thead><tr><th>Field</th><th>Value</th><th>Confidence</th><th>Cited at</th></tr></thead>
          <tbody>
            {rows.map((n) => (
              <tr key={n.id} data-field-path={n.path}>
                <td><code>{n.path}</code></td>
                <td className="value">{display(n.value)}</td>
                <td className="num">{n.citations.length ? n.confidence.toFixed(2) : <span className="muted">unattributed</span>}</td>
                <td>{n.citations.map((c, k) => <CitationLink key={k} kbId={kbId} fileId={fileId} c={c} />)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {out.warnings.length > 0 && <details><summary>{out.warnings.length} warnings</summary><pre>{JSON.stringify(out.warnings, null, 2)}</pre></details>}
    </section>
  );
}

function CitationLink({ kbId, fileId, c }: { kbId: string; fileId: string; c: Citation }) {
  const el = c.elementId ?? c.segmentId;
  return (
    <a className="citation" data-citation-element={el} href={href(['kb', kbId, 'file', fileId], { page: c.pageNumber, el })} title={c.quote}>
      page {c.pageNumber}{c.quote ? `: “${c.quote.length > 60 ? `${c.quote.slice(0, 60)}…` : c.quote}”` : ''}
    </a>
  );
}

function display(v: unknown): string {
  if (v === null || v === undefined) return '—';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}
