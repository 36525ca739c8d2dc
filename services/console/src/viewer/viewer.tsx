import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ArtifactManifest, GroundingDocument, GroundingPage } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { href, navigate } from '../lib/router';
import { useAsync } from '../lib/use-async';
import { useArtifactImage } from './artifact-image';
import { LAYERS, type LayerId } from './layers';
import { MarkdownPanel } from './markdown-panel';
import { PageView, type Region } from './page-view';
import { SheetView } from './sheet-view';
import { Thumbnails } from './thumbnails';
import { Downloads } from './downloads';

const ZOOMS = [0.5, 0.75, 1, 1.25, 1.5, 2, 3];

interface Loaded {
  manifest: ArtifactManifest;
  grounding: GroundingDocument;
  pageFiles: Map<number, string>;
  filename: string;
}

async function loadDocument(
  client: ReturnType<typeof useConsole>['client'],
  fileId: string,
  signal: AbortSignal,
): Promise<Loaded> {
  const [{ file }, { artifacts }] = await Promise.all([
    client.files.get(fileId, { signal }),
    client.files.artefacts(fileId, { signal }),
  ]);
  const manifest =
    artifacts.find((a) => a.artifact_type === 'parse' && a.file_version_id === file.current_version.id) ??
    artifacts.find((a) => a.artifact_type === 'parse');
  if (!manifest) throw new Error(`${file.filename} has not been parsed yet.`);
  const grounding = await client.artifacts.get(manifest.id, 'grounding_json', { signal });
  const pageFiles = new Map<number, string>();
  if (manifest.links.pages) {
    const { entries } = await client.artifacts.get(manifest.id, 'pages', { signal });
    for (const e of entries) {
      const m = /(\d+)\.\w+$/.exec(e.name);
      if (m) pageFiles.set(Number(m[1]), e.name);
    }
  }
  return { manifest, grounding, pageFiles, filename: file.filename };
}

export default function Viewer({ kbId, fileId, query }: { kbId: string; fileId: string; query: URLSearchParams }) {
  const { client } = useConsole();
  const doc = useAsync((signal) => loadDocument(client, fileId, signal), [client, fileId]);
  const pageNumber = Math.max(1, Number(query.get('page')) || 1);
  const selectedId = query.get('el') ?? undefined;
  const region = parseRegion(query.get('region'));
  const [zoom, setZoom] = useState(1);
  const [visible, setVisible] = useState<Set<LayerId>>(() => new Set<LayerId>([...LAYERS.map((l) => l.id), 'cells']));
  const root = useRef<HTMLDivElement>(null);
  const [wide] = useState(() => window.matchMedia('(min-width: 900px)').matches);

  const pages = doc.data?.grounding.pages ?? [];
  const pageCount = pages.length;
  const page: GroundingPage | undefined = useMemo(
    () => pages.find((p) => p.page_number === pageNumber) ?? pages[0],
    [pages, pageNumber],
  );
  const isSheet = Boolean(page?.elements.some((e) => e.sheet)) || doc.data?.manifest.links.workbook_json != null;
  const image = useArtifactImage(
    client,
    doc.data?.manifest.id,
    'pages',
    page ? doc.data?.pageFiles.get(page.page_number) : undefined,
  );

  const go = useCallback(
    (p: number, el?: string) => {
      if (!pageCount) return;
      const n = Math.min(pageCount, Math.max(1, p));
      navigate(['kb', kbId, 'file', fileId], { page: n, el }, true);
    },
    [kbId, fileId, pageCount],
  );
  const select = useCallback(
    (id: string) => navigate(['kb', kbId, 'file', fileId], { page: page?.page_number, el: id }, true),
    [kbId, fileId, page],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (t.closest('input, textarea, select')) return;
      if (e.key === 'ArrowRight' || e.key === 'PageDown') {
        e.preventDefault();
        go(pageNumber + 1);
      } else if (e.key === 'ArrowLeft' || e.key === 'PageUp') {
        e.preventDefault();
        go(pageNumber - 1);
      } else if (e.key === 'Home') {
        e.preventDefault();
        go(1);
      } else if (e.key === 'End') {
        e.preventDefault();
        go(pageCount);
      } else if (e.key === '+' || e.key === '=') setZoom((z) => ZOOMS.find((v) => v > z) ?? z);
      else if (e.key === '-') setZoom((z) => [...ZOOMS].reverse().find((v) => v < z) ?? z);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [go, pageNumber, pageCount]);

  const toggle = (id: LayerId) =>
    setVisible((v) => {
      const n = new Set(v);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  return (
    <section className="viewer" ref={root} aria-labelledby="viewer-title">
      <p className="crumbs">
        <a href="#/">Knowledge bases</a> › <a href={href(['kb', kbId])}>Knowledge base</a> ›
      </p>
      <h1 id="viewer-title">{doc.data?.filename ?? 'Document'}</h1>
      <ErrorBanner error={doc.error ?? image.error} />
      {doc.data && (
        <>
          <div className="toolbar viewer-toolbar" role="toolbar" aria-label="Viewer controls">
            {!isSheet && (
              <>
                <button
                  type="button"
                  onClick={() => go(pageNumber - 1)}
                  disabled={pageNumber <= 1}
                  aria-label="Previous page"
                >
                  ‹
                </button>
                <label>
                  Page{' '}
                  <input
                    type="number"
                    name="page"
                    min={1}
                    max={pageCount}
                    value={page?.page_number ?? 1}
                    onChange={(e) => go(Number(e.target.value))}
                  />{' '}
                  of {pageCount}
                </label>
                <button
                  type="button"
                  onClick={() => go(pageNumber + 1)}
                  disabled={pageNumber >= pageCount}
                  aria-label="Next page"
                >
                  ›
                </button>
                <label>
                  Zoom{' '}
                  <select name="zoom" value={zoom} onChange={(e) => setZoom(Number(e.target.value))}>
                    {ZOOMS.map((z) => (
                      <option key={z} value={z}>
                        {Math.round(z * 100)}%
                      </option>
                    ))}
                  </select>
                </label>
              </>
            )}
            <details className="layers-menu" open={wide}>
              <summary>Layers</summary>
              <fieldset className="layers">
                <legend className="sr-only">Layers drawn on the page</legend>
                {LAYERS.map((l) => (
                  <label key={l.id} className="check">
                    <input type="checkbox" checked={visible.has(l.id)} onChange={() => toggle(l.id)} />
                    <span className="swatch" style={{ background: l.color }} /> {l.label}
                  </label>
                ))}
                <label className="check">
                  <input type="checkbox" checked={visible.has('cells')} onChange={() => toggle('cells')} /> Table cells
                </label>
              </fieldset>
            </details>
            <Downloads manifest={doc.data.manifest} filename={doc.data.filename} />
            <nav className="actions" aria-label="Workflows on this document">
              <a className="button" href={href(['kb', kbId, 'file', fileId, 'extract'])}>
                Extract
              </a>
              <a className="button" href={href(['kb', kbId, 'file', fileId, 'split'])}>
                Split
              </a>
              <a className="button" href={href(['kb', kbId, 'file', fileId, 'classify'])}>
                Classify
              </a>
              <a className="button" href={href(['kb', kbId, 'file', fileId, 'edit'])}>
                Edit
              </a>
            </nav>
          </div>
          {isSheet ? (
            <SheetView
              grounding={doc.data.grounding}
              manifest={doc.data.manifest}
              selectedId={selectedId}
              onSelect={(id) => navigate(['kb', kbId, 'file', fileId], { el: id }, true)}
            />
          ) : page ? (
            <div className="viewer-body">
              <Thumbnails
                manifestId={doc.data.manifest.id}
                pageFiles={doc.data.pageFiles}
                pages={pages}
                current={page.page_number}
                onPick={(p) => go(p)}
              />
              <div className="stage-scroll" tabIndex={0} aria-label={`Page ${page.page_number} of ${pageCount}`}>
                <div className="stage-sizer" style={{ width: `${zoom * 100}%` }}>
                  <PageView
                    key={`${fileId}:${page.page_number}`}
                    page={page}
                    imageUrl={image.url}
                    visible={visible}
                    selectedId={selectedId}
                    region={region}
                    onSelect={select}
                  />
                </div>
              </div>
              <MarkdownPanel manifestId={doc.data.manifest.id} page={page} selectedId={selectedId} onSelect={select} />
            </div>
          ) : (
            <p className="muted">This document has no pages.</p>
          )}
        </>
      )}
      {doc.loading && !doc.data && <p className="muted">Loading document…</p>}
    </section>
  );
}

function parseRegion(s: string | null): Region | undefined {
  const v = s?.split(',').map(Number);
  if (!v || v.length !== 4 || v.some((n) => !Number.isFinite(n))) return undefined;
  return { x1: v[0]! / 1000, y1: v[1]! / 1000, x2: v[2]! / 1000, y2: v[3]! / 1000 };
}
