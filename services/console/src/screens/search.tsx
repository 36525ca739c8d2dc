import { useState, type FormEvent } from 'react';
import type { SearchHit, SearchResponse } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { href, navigate } from '../lib/router';
import { useAsync } from '../lib/use-async';

/** Search with the API's filters; the query lives in the route so a result page can be linked. */
export default function Search({ kbId, query }: { kbId: string; query: URLSearchParams }) {
  const { client } = useConsole();
  const q = query.get('q') ?? '';
  const [text, setText] = useState(q);
  const [tableOnly, setTableOnly] = useState(query.get('table') === '1');
  const [years, setYears] = useState(query.get('years') ?? '');
  const [limit, setLimit] = useState(Number(query.get('limit')) || 30);
  const index = useAsync((signal) => client.knowledgeBases.index(kbId, { signal }), [client, kbId]);
  const [fileId, setFileId] = useState(query.get('file') ?? '');
  const [folderId, setFolderId] = useState(query.get('folder') ?? '');
  const [sourceType, setSourceType] = useState(query.get('source') ?? '');
  const folders = [
    ...new Map(
      (index.data?.files ?? []).filter((f) => f.folder_id).map((f) => [f.folder_id!, f.folder_name ?? f.folder_id!]),
    ),
  ];
  const ran = query.has('q');
  const result = useAsync<SearchResponse | undefined>(
    async (signal) => {
      if (!ran) return undefined;
      const ys = (query.get('years') ?? '')
        .split(/[,\s]+/)
        .filter(Boolean)
        .map(Number)
        .filter(Number.isInteger);
      return client.search(
        kbId,
        {
          query: q,
          limit: Number(query.get('limit')) || 30,
          table_only: query.get('table') === '1' || undefined,
          years: ys.length ? ys : undefined,
          file_ids: query.get('file') ? [query.get('file')!] : undefined,
          folder_id: query.get('folder') || undefined,
          source_type: query.get('source') || undefined,
        },
        { signal },
      );
    },
    [client, kbId, query.toString()],
  );

  function submit(e: FormEvent) {
    e.preventDefault();
    navigate(['kb', kbId, 'search'], {
      q: text,
      table: tableOnly ? '1' : undefined,
      years: years.trim() || undefined,
      limit,
      file: fileId || undefined,
      folder: folderId || undefined,
      source: sourceType || undefined,
    });
  }

  return (
    <section aria-labelledby="search-title">
      <p className="crumbs">
        <a href="#/">Knowledge bases</a> ›{' '}
        <a href={href(['kb', kbId])}>{index.data?.knowledge_base.name ?? 'Knowledge base'}</a> ›
      </p>
      <h1 id="search-title">Search</h1>
      <form className="search-form" onSubmit={submit} role="search" aria-label="Search this knowledge base">
        <label className="grow">
          Query <input name="q" type="search" maxLength={4000} value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <label>
          Document{' '}
          <select name="file" value={fileId} onChange={(e) => setFileId(e.target.value)}>
            <option value="">All documents</option>
            {index.data?.files.map((f) => (
              <option key={f.file_id} value={f.file_id}>
                {f.filename}
              </option>
            ))}
          </select>
        </label>
        {folders.length > 0 && (
          <label>
            Folder{' '}
            <select name="folder" value={folderId} onChange={(e) => setFolderId(e.target.value)}>
              <option value="">All folders</option>
              {folders.map(([id, n]) => (
                <option key={id} value={id}>
                  {n}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Source{' '}
          <select name="source-type" value={sourceType} onChange={(e) => setSourceType(e.target.value)}>
            <option value="">Any</option>
            <option value="pdf">PDF</option>
            <option value="image">Image</option>
            <option value="spreadsheet">Spreadsheet</option>
          </select>
        </label>
        <label>
          Years{' '}
          <input
            name="years"
            placeholder="2023, 2024"
            value={years}
            onChange={(e) => setYears(e.target.value)}
            size={10}
          />
        </label>
        <label>
          Limit{' '}
          <input
            name="limit"
            type="number"
            min={1}
            max={80}
            value={limit}
            onChange={(e) => setLimit(Number(e.target.value))}
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            name="table-only"
            checked={tableOnly}
            onChange={(e) => setTableOnly(e.target.checked)}
          />{' '}
          Tables only
        </label>
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <ErrorBanner error={result.error} />
      {result.loading && ran && <p className="muted">Searching…</p>}
      {result.data && (
        <>
          <p className="muted small">
            {result.data.hits.length} hit{result.data.hits.length === 1 ? '' : 's'}
          </p>
          <ol className="hits" aria-label="Search hits">
            {result.data.hits.map((h) => (
              <Hit key={h.id} kbId={kbId} hit={h} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function Hit({ kbId, hit }: { kbId: string; hit: SearchHit }) {
  const c = hit.coordinates as {
    pageNumber?: number;
    xmin?: number;
    ymin?: number;
    xmax?: number;
    ymax?: number;
    rangeA1?: string;
    sheetName?: string;
  };
  const page = c.pageNumber;
  const region = page !== undefined ? [c.xmin, c.ymin, c.xmax, c.ymax].join(',') : undefined;
  const link = href(['kb', kbId, 'file', hit.fileId], { page, el: hit.segmentId, region });
  return (
    <li className="hit" data-segment-id={hit.segmentId}>
      <a href={link} className="hit-title">
        {hit.docName}: {hit.title}
      </a>
      <span className="muted small">
        {' '}
        {page !== undefined ? `page ${page}` : `${c.sheetName ?? ''} ${c.rangeA1 ?? ''}`}
        {hit.tableMetadata?.isTable ? ' · table' : ''} · score {hit.score.toFixed(3)}
      </span>
      <p className="snippet">{hit.markdown.length > 400 ? `${hit.markdown.slice(0, 400)}…` : hit.markdown}</p>
    </li>
  );
}
