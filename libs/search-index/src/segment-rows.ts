// segments.json (Segment[], libs/contracts) → the rows of evidence_index_segments. Everything a
// search hit shows is derived here, once, at index time: tags, table metadata, neighbours.
import type { Segment } from '@docfleet/contracts';
import { z } from 'zod';
import { footnoteMarker, markerMatches, noteMarkers, quarterTags, yearTags } from './tags';

/** What the index needs of a segment; anything else in segments.json is ignored. */
const SegmentIn = z.object({
  id: z.string().min(1),
  title: z.string().nullish(),
  markdown: z.string().nullish(),
  sourceType: z.string().nullish(),
  coordinates: z.record(z.string(), z.unknown()).nullish(),
  cells: z.array(z.unknown()).nullish(),
  tableMetadata: z
    .object({
      isTable: z.boolean().optional(),
      headers: z.array(z.string()).optional(),
      rowLabels: z.array(z.string()).optional(),
      noteRefs: z.array(z.string()).optional(),
    })
    .nullish(),
});
export const SegmentsFile = z.array(SegmentIn);
export type SegmentInput = z.infer<typeof SegmentIn> | Segment;

export interface SegmentRow {
  segment_id: string;
  ordinal: number;
  title: string;
  /** Table headers and row labels: the tsvector's weight-B part. */
  labels: string;
  markdown: string;
  source_type: string;
  coordinates: Record<string, unknown>;
  is_table: boolean;
  table_metadata: { isTable: boolean; headers?: string[]; rowLabels?: string[]; noteRefs?: string[] };
  note_refs: string[];
  years: number[];
  quarters: string[];
  neighbors: { previousSegmentId: string | null; nextSegmentId: string | null; noteSegmentIds: string[] };
}

// PostgreSQL text cannot hold NUL and jsonb refuses unpaired surrogates; parsers can emit both.
// eslint-disable-next-line no-control-regex
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
export const clean = (s: string) => s.replace(UNSAFE, (c) => (c === '\u0000' ? '' : '\ufffd'));

function cleanDeep(v: unknown): unknown {
  if (typeof v === 'string') return clean(v);
  if (Array.isArray(v)) return v.map(cleanDeep);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [clean(k), cleanDeep(x)]));
  return v;
}

/** The page or sheet a segment sits on: footnotes are matched within it. */
function placeOf(c: Record<string, unknown>): string {
  if (typeof c.pageNumber === 'number') return `p${c.pageNumber}`;
  if (typeof c.sheetIndex === 'number') return `s${c.sheetIndex}`;
  return '';
}

/**
 * Rows in document order. Segments without markdown are dropped (docs/api.md, "Parse backend `auto`"); a repeated
 * segment id keeps its first occurrence's id and later ones get a `~n` suffix, so one bad bundle
 * cannot make the unique (file_version_id, segment_id) key fail the whole job forever.
 */
export function segmentRows(segments: readonly SegmentInput[], defaultSourceType = 'pdf'): SegmentRow[] {
  const seen = new Map<string, number>();
  const rows: SegmentRow[] = [];
  for (const s of segments) {
    const row = rowOf(s, seen, rows.length, defaultSourceType);
    if (row) rows.push(row);
  }
  linkNeighbours(rows);
  return rows;
}

/**
 * segmentRows over a stream of segments (segments.json read element by element): the same rows,
 * with memory bounded by one page's (or sheet's) segments. Footnotes are matched within a page, so
 * rows are linked a page at a time; each row is handed on once the next one is known.
 */
export async function* streamSegmentRows(
  segments: AsyncIterable<unknown>,
  defaultSourceType = 'pdf',
): AsyncGenerator<SegmentRow> {
  const seen = new Map<string, number>();
  let ordinal = 0;
  let group: SegmentRow[] = [];
  let place: string | null = null;
  let held: SegmentRow | undefined;
  function* emit(rows: SegmentRow[]): Generator<SegmentRow> {
    linkNotes(rows);
    for (const r of rows) {
      if (held) {
        held.neighbors.nextSegmentId = r.segment_id;
        r.neighbors.previousSegmentId = held.segment_id;
        yield held;
      }
      held = r;
    }
  }
  for await (const raw of segments) {
    const parsed = SegmentIn.safeParse(raw);
    if (!parsed.success)
      throw new Error(`segments.json holds an element that is not a segment: ${parsed.error.issues[0]?.message}`);
    const row = rowOf(parsed.data, seen, ordinal, defaultSourceType);
    if (!row) continue;
    ordinal++;
    const p = placeOf(row.coordinates);
    if (group.length && p !== place) {
      yield* emit(group);
      group = [];
    }
    place = p;
    group.push(row);
  }
  yield* emit(group);
  if (held) yield held;
}

function rowOf(
  s: SegmentInput,
  seen: Map<string, number>,
  ordinal: number,
  defaultSourceType: string,
): SegmentRow | null {
  const markdown = clean(s.markdown ?? '').trim();
  if (!markdown) return null;
  const base = clean(s.id);
  const n = seen.get(base) ?? 0;
  seen.set(base, n + 1);
  const id = n > 0 ? `${base}~${n + 1}` : base;
  const meta = s.tableMetadata ?? undefined;
  const isTable = meta?.isTable ?? Boolean(s.cells && s.cells.length);
  const headers = (meta?.headers ?? []).map(clean);
  const rowLabels = (meta?.rowLabels ?? []).map(clean);
  const title = clean(s.title ?? '').trim();
  const coordinates = cleanDeep(s.coordinates ?? {}) as Record<string, unknown>;
  const sourceType = clean(
    s.sourceType || (typeof coordinates.sourceType === 'string' ? coordinates.sourceType : '') || defaultSourceType,
  );
  const noteRefs = [...new Set([...(meta?.noteRefs ?? []).map(clean), ...noteMarkers(markdown)])];
  const tagText = `${title}\n${headers.join(' ')}\n${markdown}`;
  return {
    segment_id: id,
    ordinal,
    title,
    labels: [...headers, ...rowLabels].join(' \n '),
    markdown,
    source_type: sourceType,
    coordinates,
    is_table: isTable,
    table_metadata: isTable
      ? { isTable: true, headers, rowLabels, noteRefs: (meta?.noteRefs ?? []).map(clean) }
      : { isTable: false },
    note_refs: noteRefs,
    years: yearTags(tagText),
    quarters: quarterTags(tagText),
    neighbors: { previousSegmentId: null, nextSegmentId: null, noteSegmentIds: [] },
  };
}

function linkNeighbours(rows: SegmentRow[]) {
  rows.forEach((r, i) => {
    r.neighbors.previousSegmentId = rows[i - 1]?.segment_id ?? null;
    r.neighbors.nextSegmentId = rows[i + 1]?.segment_id ?? null;
  });
  linkNotes(rows);
}

/** Footnotes per page or sheet: a segment starting with a marker explains that marker there. */
function linkNotes(rows: SegmentRow[]) {
  const notesByPlace = new Map<string, Array<{ id: string; marker: string }>>();
  for (const r of rows) {
    const marker = footnoteMarker(r.markdown);
    if (!marker) continue;
    const place = placeOf(r.coordinates);
    const list = notesByPlace.get(place) ?? [];
    list.push({ id: r.segment_id, marker });
    notesByPlace.set(place, list);
  }
  for (const r of rows) {
    if (!r.note_refs.length) continue;
    const notes = notesByPlace.get(placeOf(r.coordinates)) ?? [];
    r.neighbors.noteSegmentIds = notes
      .filter((n) => n.id !== r.segment_id && r.note_refs.some((ref) => markerMatches(ref, n.marker)))
      .map((n) => n.id);
  }
}
