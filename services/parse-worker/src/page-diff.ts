// Stage page-diff: which pages of the new version can be taken from the previous parse of the file.
import fs from 'node:fs/promises';
import path from 'node:path';
import { BUNDLE } from '@docfleet/contracts';
import type { ArtifactManifest, Db } from '@docfleet/db';
import type { StorageDriver } from '@docfleet/storage';
import { pageImageName } from '@docfleet/pdf';
import { pageResultName, type PageResult } from './bundle';

/** What a parse's output depends on besides the page content; pages are reused only when it matches. */
export interface ParseSettings {
  backend: 'text' | 'ocr';
  dpi: number;
  page_fallback_ocr: boolean;
  layout_device: string;
  /** Whether page images were written (a page reused without its image would leave a gap). */
  page_images: boolean;
}

export interface PreviousParse {
  manifest: ArtifactManifest;
  /** Local directory of its bundle. */
  root: string;
  hashes: string[];
  sha256: string;
  settings: ParseSettings | null;
  pageCount: number | null;
  spreadsheet: boolean;
  /** Pages that failed their budget or lost their image then: never reused (the budget may have changed). */
  incomplete: Set<number>;
}

/** The newest parse manifest of the file (any version; the current one too when re-parsed). */
export async function findPreviousParse(db: Db, storage: StorageDriver, fileId: string): Promise<PreviousParse | null> {
  const manifest = await db.artifactManifest.findFirst({
    where: { file_id: fileId, artifact_type: 'parse' },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
  });
  if (!manifest) return null;
  const [pages, version] = await Promise.all([
    db.pageVersion.findMany({ where: { file_version_id: manifest.file_version_id }, orderBy: { page_number: 'asc' } }),
    db.fileVersion.findUnique({ where: { id: manifest.file_version_id }, select: { sha256: true } }),
  ]);
  const m = (manifest.manifest ?? {}) as {
    page_count?: number;
    parse_settings?: ParseSettings;
    unit?: string;
    failed_pages?: Array<{ page_number?: number }>;
    pages_without_image?: number[];
  };
  const incomplete = new Set<number>([
    ...(m.failed_pages ?? []).map((f) => Number(f?.page_number)),
    ...(m.pages_without_image ?? []).map(Number),
  ]);
  return {
    manifest,
    root: storage.localPath(manifest.storage_prefix),
    hashes: pages.map((p) => p.content_hash),
    sha256: version?.sha256 ?? '',
    settings: m.parse_settings ?? null,
    pageCount: m.page_count ?? null,
    spreadsheet: m.unit === 'sheets',
    incomplete,
  };
}

const sameSettings = (a: ParseSettings | null, b: ParseSettings) =>
  !!a &&
  a.backend === b.backend &&
  a.dpi === b.dpi &&
  a.page_fallback_ocr === b.page_fallback_ocr &&
  a.layout_device === b.layout_device &&
  (a.page_images ?? true) === b.page_images;

/**
 * Pages are compared by content, not position: page n of the new version is unchanged when some page
 * of the previous parse had the same content hash (the same page moved, e.g. after a page inserted at
 * the front), was made with the same settings, and its page result is still readable. `sources` maps
 * each unchanged page to the previous page it is taken from (the same position when that matches).
 */
export async function diffPages(prev: PreviousParse | null, hashes: string[], settings: ParseSettings) {
  const changed: number[] = [];
  const unchanged: number[] = [];
  const sources = new Map<number, number>();
  const reusable = !!prev && !prev.spreadsheet && sameSettings(prev.settings, settings);
  /** Previous page numbers by content hash, in page order (only pages that can be reused). */
  const byHash = new Map<string, number[]>();
  if (reusable) {
    for (let m = 1; m <= prev!.hashes.length; m++) {
      const h = prev!.hashes[m - 1]!;
      if (!h || prev!.incomplete.has(m)) continue;
      if (!(await exists(path.join(prev!.root, BUNDLE.page_results, pageResultName(m))))) continue;
      byHash.set(h, [...(byHash.get(h) ?? []), m]);
    }
  }
  for (let n = 1; n <= hashes.length; n++) {
    const candidates = byHash.get(hashes[n - 1]!) ?? [];
    const from = candidates.includes(n) ? n : candidates[0];
    if (from === undefined) changed.push(n);
    else {
      unchanged.push(n);
      sources.set(n, from);
    }
  }
  return { changed, unchanged, sources };
}

/** Whether every unchanged page sits where it was (the previous bundle can then be kept as it is). */
export const samePositions = (sources: Map<number, number>) => [...sources].every(([n, from]) => n === from);

async function exists(p: string) {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads page `from` of the previous bundle as page `n` of the new one and copies its files (page
 * image, crops) into outDir. A page that moved is renumbered everywhere its number appears: the
 * grounding page number, element ids (`p<n>-…`), crop and page image names, and the markdown and
 * element `image` references to the crops, so the bundle reads exactly as a fresh parse of page n.
 */
export async function reusePage(prevRoot: string, outDir: string, n: number, from = n): Promise<PageResult> {
  const stored = JSON.parse(
    await fs.readFile(path.join(prevRoot, BUNDLE.page_results, pageResultName(from)), 'utf8'),
  ) as PageResult;
  const result = from === n ? stored : renumberPage(stored, from, n);
  for (let i = 0; i < stored.files.length; i++) {
    const rel = stored.files[i]!;
    const relTo = result.files[i]!;
    if (rel.includes('..') || path.isAbsolute(rel) || relTo.includes('..') || path.isAbsolute(relTo)) continue;
    const to = path.join(outDir, relTo);
    await fs.mkdir(path.dirname(to), { recursive: true });
    await fs.copyFile(path.join(prevRoot, rel), to);
  }
  return result;
}

const pad4 = (n: number) => String(n).padStart(4, '0');

/** A page result of page `from` rewritten as page `to` (see reusePage). */
export function renumberPage(r: PageResult, from: number, to: number): PageResult {
  const imgFrom = `imgs/p${pad4(from)}_`;
  const imgTo = `imgs/p${pad4(to)}_`;
  const file = (rel: string) =>
    rel === `${BUNDLE.pages}/${pageImageName(from)}`
      ? `${BUNDLE.pages}/${pageImageName(to)}`
      : rel.startsWith(imgFrom)
        ? imgTo + rel.slice(imgFrom.length)
        : rel;
  // Crop references appear in markdown as `](imgs/p0001_figure_1.jpg)`.
  const refs = (md: string) => md.split(`](${imgFrom}`).join(`](${imgTo}`);
  const idFrom = `p${from}-`;
  return {
    ...r,
    page_number: to,
    markdown: refs(r.markdown),
    files: r.files.map(file),
    grounding: {
      ...r.grounding,
      page_number: to,
      elements: r.grounding.elements.map((el) => ({
        ...el,
        id: el.id.startsWith(idFrom) ? `p${to}-${el.id.slice(idFrom.length)}` : el.id,
        markdown_anchor: refs(el.markdown_anchor),
        ...(el.image !== undefined ? { image: file(el.image) } : {}),
      })),
    },
  };
}
