import { useEffect, useState } from 'react';
import type {
  Citation,
  ExtractRunOutput,
  ExtractionDocument,
  FieldListSchema,
  ResultNode,
  SchemaField,
  SchemaGenerateOutput,
} from '@docfleet/sdk';
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
  const [mode, setMode] = useState<'fields' | 'json'>('fields');
  const [jsonText, setJsonText] = useState('');
  const [job, setJob] = useState<{
    running: boolean;
    status?: string;
    stage?: string | null;
    doc?: ExtractionDocument;
    error?: unknown;
  }>({ running: false });
  const generation = useQueued<SchemaGenerateOutput>(client);

  const schema = (): FieldListSchema => ({
    version: 1,
    title: title || undefined,
    fields: fields.filter((f) => f.name.trim()),
  });
  const patch = (k: number, p: Partial<SchemaField>) =>
    setFields((fs) => fs.map((f, i) => (i === k ? { ...f, ...p } : f)));

  function pick(id: string) {
    setSchemaId(id);
    const s = saved.data?.schemas.find((x) => x.id === id);
    if (s) {
      setFields(s.schema.fields.length ? s.schema.fields : [blank()]);
      setTitle(s.title);
    }
  }
  async function save() {
    setError(undefined);
    try {
      const r = await client.extract.createSchema({ schema: schema(), file_id: fileId });
      setSchemaId(r.schema.id);
      setNote(`Saved as "${r.schema.title}".`);
      saved.reload();
    } catch (err) {
      setError(err);
    }
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
  const run = () =>
    extraction.start(() => client.extract.run({ file_id: fileId, schema: schema(), idempotency_key: newKey() }));

  /** The file-job path: a JSON Schema, validated on the server; citations come resolved to their boxes. */
  async function runJsonSchema() {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(jsonText) as Record<string, unknown>;
    } catch (err) {
      return setJob({
        running: false,
        error: new Error(`The JSON Schema is not valid JSON: ${(err as Error).message}`),
      });
    }
    setJob({ running: true });
    try {
      const r = await client.files.extract(fileId, {
        schema: parsed,
        schema_name: title || undefined,
        idempotency_key: newKey(),
      });
      const done = await client.waitForJob(fileId, r.job.job_id, {
        initialIntervalMs: 1000,
        maxIntervalMs: 4000,
        onProgress: (j) => setJob({ running: true, status: j.status, stage: j.stage }),
      });
      if (done.status !== 'completed')
        return setJob({
          running: false,
          status: done.status,
          error: new Error(`The extraction job ${done.status}: ${done.error ?? 'no reason given'}`),
        });
      const manifestId = (done.result as { artifact_manifest_id?: string } | null)?.artifact_manifest_id;
      if (!manifestId) throw new Error('The completed job names no result artifact.');
      setJob({ running: false, status: done.status, doc: await client.artifacts.get(manifestId, 'result_json') });
    } catch (err) {
      setJob({ running: false, error: err });
    }
  }
  function switchMode(m: 'fields' | 'json') {
    // Start the JSON Schema from the fields written so far.
    if (m === 'json' && !jsonText.trim()) setJsonText(JSON.stringify(toJsonSchema(schema()), null, 2));
    setMode(m);
  }

  return (
    <>
      <section aria-labelledby="schema-title">
        <h2 id="schema-title">Schema</h2>
        <div className="toolbar">
          <label>
            Saved schemas{' '}
            <select name="saved-schema" value={schemaId} onChange={(e) => pick(e.target.value)}>
              <option value="">(write one here)</option>
              {saved.data?.schemas.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.title}
                </option>
              ))}
            </select>
          </label>
          <label>
            Title <input name="schema-title" value={title} onChange={(e) => setTitle(e.target.value)} />
          </label>
          <button type="button" onClick={() => void generate()} disabled={generation.run.running}>
            Generate from this document
          </button>
          <button type="button" onClick={() => void save()}>
            Save schema
          </button>
        </div>
        <OperationStatus run={generation.run} />
        <ErrorBanner error={generation.run.error ?? saved.error ?? error} />
        {note && (
          <p className="notice" role="status">
            {note}
          </p>
        )}
        <div className="tabs" role="tablist" aria-label="Schema as">
          <button type="button" role="tab" aria-selected={mode === 'fields'} onClick={() => switchMode('fields')}>
            Field list
          </button>
          <button type="button" role="tab" aria-selected={mode === 'json'} onClick={() => switchMode('json')}>
            JSON Schema
          </button>
        </div>
        {mode === 'json' ? (
          <div className="stack">
            <label>
              JSON Schema (Draft 2020-12); the result is validated against it
              <textarea
                name="json-schema"
                rows={14}
                spellCheck={false}
                value={jsonText}
                onChange={(e) => setJsonText(e.target.value)}
              />
            </label>
            <div>
              <button
                type="button"
                className="primary"
                disabled={job.running || !jsonText.trim()}
                onClick={() => void runJsonSchema()}
              >
                Run extraction job (no credit)
              </button>
            </div>
            {job.running && (
              <p className="op-status" role="status">
                Extraction job {job.status ?? 'starting'}
                {job.stage ? ` · ${job.stage}` : ''}
              </p>
            )}
            <ErrorBanner error={job.error} />
          </div>
        ) : (
          <>
            <div className="table-wrap">
              <table aria-label="Fields">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th>Type</th>
                    <th>Description</th>
                    <th>Required</th>
                    <th />
                  </tr>
                </thead>
                <tbody>
                  {fields.map((f, k) => (
                    <tr key={k}>
                      <td>
                        <input
                          aria-label={`Field ${k + 1} name`}
                          value={f.name}
                          onChange={(e) => patch(k, { name: e.target.value })}
                        />
                      </td>
                      <td>
                        <select
                          aria-label={`Field ${k + 1} type`}
                          value={f.type}
                          onChange={(e) => patch(k, { type: e.target.value })}
                        >
                          {TYPES.map((t) => (
                            <option key={t}>{t}</option>
                          ))}
                        </select>
                        {f.children?.length ? (
                          <span className="muted small"> {f.children.length} sub-fields</span>
                        ) : null}
                      </td>
                      <td>
                        <input
                          aria-label={`Field ${k + 1} description`}
                          value={f.description ?? ''}
                          onChange={(e) => patch(k, { description: e.target.value })}
                          size={40}
                        />
                      </td>
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`Field ${k + 1} required`}
                          checked={Boolean(f.required)}
                          onChange={(e) => patch(k, { required: e.target.checked })}
                        />
                      </td>
                      <td>
                        <button
                          type="button"
                          aria-label={`Remove field ${k + 1}`}
                          onClick={() => setFields((fs) => fs.filter((_, i) => i !== k))}
                        >
                          Remove
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <div className="actions">
              <button type="button" onClick={() => setFields((fs) => [...fs, blank()])}>
                Add field
              </button>
              <button
                type="button"
                className="primary"
                disabled={extraction.run.running || !schema().fields.length}
                onClick={() => void run()}
              >
                Run extraction (1 credit)
              </button>
            </div>
          </>
        )}
      </section>
      <OperationStatus run={extraction.run} onCancel={() => void extraction.cancel()} />
      <ErrorBanner error={extraction.run.error} />
      {mode === 'fields' && extraction.run.output && (
        <ExtractionResult
          kbId={kbId}
          fileId={fileId}
          tree={extraction.run.output.resultTree}
          summary={`Model ${extraction.run.output.modelId} · ${extraction.run.output.metrics.selectedSegmentCount} of ${extraction.run.output.metrics.segmentCount} segments used · ${extraction.run.output.citations.length} citations`}
          warnings={extraction.run.output.warnings}
        />
      )}
      {mode === 'json' && job.doc && (
        <ExtractionResult
          kbId={kbId}
          fileId={fileId}
          tree={job.doc.resultTree}
          summary={`Model ${job.doc.modelId} · ${job.doc.citations.length} citations · ${job.doc.validationErrors.length} validation errors`}
          warnings={[...job.doc.validationErrors, ...job.doc.warnings]}
        />
      )}
    </>
  );
}

function ExtractionResult({
  kbId,
  fileId,
  tree,
  summary,
  warnings,
}: {
  kbId: string;
  fileId: string;
  tree: ResultNode[];
  summary: string;
  warnings: unknown[];
}) {
  const rows: ResultNode[] = [];
  const walk = (ns: ResultNode[]) => {
    for (const n of ns) {
      rows.push(n);
      walk(n.children ?? []);
    }
  };
  walk(tree);
  return (
    <section aria-labelledby="result-title">
      <h2 id="result-title">Result</h2>
      <p className="muted small">{summary}</p>
      <div className="table-wrap">
        <table aria-label="Extracted values">
          <thead>
            <tr>
              <th>Field</th>
              <th>Value</th>
              <th>Confidence</th>
              <th>Cited at</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((n) => (
              <tr key={n.id} data-field-path={n.path}>
                <td>
                  <code>{n.path}</code>
                </td>
                <td className="value">
                  {display(n.value)}
                  {n.missingReason && <span className="muted small"> ({n.missingReason.replace(/_/g, ' ')})</span>}
                </td>
                <td className="num">
                  {n.citations.length ? n.confidence.toFixed(2) : <span className="muted">unattributed</span>}
                </td>
                <td>
                  {n.citations.map((c, k) => (
                    <CitationLink key={k} kbId={kbId} fileId={fileId} c={c} />
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {warnings.length > 0 && (
        <details>
          <summary>{warnings.length} warnings</summary>
          <pre>{JSON.stringify(warnings, null, 2)}</pre>
        </details>
      )}
    </section>
  );
}

function CitationLink({ kbId, fileId, c }: { kbId: string; fileId: string; c: Citation }) {
  const el = c.elementId ?? c.segmentId;
  const b = c.bbox as { x1?: number; y1?: number; x2?: number; y2?: number } | null | undefined;
  const region =
    b && [b.x1, b.y1, b.x2, b.y2].every((v) => typeof v === 'number')
      ? [b.x1!, b.y1!, b.x2!, b.y2!].map((v) => Math.round(v * 1000)).join(',')
      : undefined;
  return (
    <a
      className="citation"
      data-citation-element={el}
      href={href(['kb', kbId, 'file', fileId], { page: c.pageNumber, el, region })}
      title={c.quote}
    >
      page {c.pageNumber}
      {c.quote ? `: “${c.quote.length > 60 ? `${c.quote.slice(0, 60)}…` : c.quote}”` : ''}
    </a>
  );
}

/** The JSON Schema a field list stands for (what the API derives too): an object of typed properties. */
function toJsonSchema(s: FieldListSchema): Record<string, unknown> {
  const prop = (f: SchemaField): Record<string, unknown> => {
    const description = f.description || undefined;
    if (f.type === 'number') return { type: ['number', 'null'], description };
    if (f.type === 'boolean') return { type: ['boolean', 'null'], description };
    if (f.type === 'object')
      return {
        type: ['object', 'null'],
        description,
        properties: Object.fromEntries((f.children ?? []).map((c) => [key(c.name), prop(c)])),
      };
    if (f.type === 'array' || f.type === 'table')
      return { type: ['array', 'null'], description, items: { type: 'object' } };
    return { type: ['string', 'null'], description, ...(f.type === 'date' ? { format: 'date' } : {}) };
  };
  return {
    title: s.title,
    type: 'object',
    properties: Object.fromEntries(s.fields.map((f) => [key(f.name), prop(f)])),
    required: s.fields.filter((f) => f.required).map((f) => key(f.name)),
  };
}
const key = (name: string) => name.toLowerCase().replace(/[^a-z0-9_]+/g, '_');

function display(v: unknown): string {
  if (v === null || v === undefined) return '—';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}
