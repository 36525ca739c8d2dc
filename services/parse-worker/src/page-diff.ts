// Stage page-diff: which pages of the new version can be taken from the previous parse of the file.
import fs from 'node:fs/promises';
import path from 'node:path';
import { BUNDLE } from '@docfleet/contracts';
import type { ArtifactManifest, Db } from '@docfleet/db';
import type { StorageDriver } from '@docfleet/storage';
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
 * Pages are compared by position: page n is unchanged when the previous parse had page n with the
 * same content hash, was made with the same settings, and its page result is still readable.
 */
export async function diffPages(prev: PreviousParse | null, hashes: string[], settings: ParseSettings) {
  const changed: number[] = [];
  const unchanged: number[] = [];
  const reusable = !!prev && !prev.spreadsheet && sameSettings(prev.settings, settings);
  for (let n = 1; n <= hashes.length; n++) {
    const same =
      reusable &&
      prev!.hashes[n - 1] === hashes[n - 1] &&
      !prev!.incomplete.has(n) &&
      (await exists(path.join(prev!.root, BUNDLE.page_results, pageResultName(n))));
    (same ? unchanged : changed).push(n);
  }
  return { changed, unchanged };
}

async function exists(p: string) {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}

/** Reads a page result of the previous bundle and copies its files (page image, crops) into outDir. */
export async function reusePage(prevRoot: string, outDir: string, n: number): Promise<PageResult> {
  const result = JSON.parse(
    await fs.readFile(path.join(prevRoot, BUNDLE.page_results, pageResultName(n)), 'utf8'),
  ) as PageResult;
  for (const rel of result.files) {
    if (rel.includes('..') || path.isAbsolute(rel)) continue;
    const to = path.join(outDir, rel);
    await fs.mkdir(path.dirname(to), { recursive: true });
    await fs.copyFile(path.join(prevRoot, rel), to);
  }
  return result;
}
