// Loads the ESM-only pdfjs-dist legacy build from CommonJS code (jest via swc, tsx).
// Node >= 20.19 can require() ESM; we reach the *real* Node require through
// process.getBuiltinModule so jest's module registry (which cannot load .mjs) is bypassed, and
// swc cannot rewrite it the way it rewrites a dynamic import().
import fs from 'node:fs/promises';
import path from 'node:path';
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api';
import { ParseError } from './parse-error';
import { releaseAbandoned } from './text-layer/operator-stream';

export type PdfjsModule = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
export type { PDFDocumentProxy };

let cached: PdfjsModule | undefined;

function nativeRequire(): NodeJS.Require {
  const getBuiltin = (process as unknown as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  const mod = (getBuiltin ? getBuiltin('node:module') : require('node:module')) as typeof import('node:module');
  return mod.createRequire(__filename);
}

export function loadPdfjs(): PdfjsModule {
  if (cached) return cached;
  const req = nativeRequire();
  const pdfjs = req('pdfjs-dist/legacy/build/pdf.mjs') as PdfjsModule;
  // Hand the worker module over up front: the in-thread "fake worker" then needs no dynamic import.
  (globalThis as unknown as { pdfjsWorker?: unknown }).pdfjsWorker = req('pdfjs-dist/legacy/build/pdf.worker.mjs');
  cached = pdfjs;
  return pdfjs;
}

let assetDirs: Record<string, string> | undefined;
/** pdf.js' own font/cmap/wasm folders, so nothing is ever fetched from the network. */
export function pdfjsAssets(): Record<string, string> {
  if (assetDirs) return assetDirs;
  const pkg = path.dirname(nativeRequire().resolve('pdfjs-dist/package.json'));
  const dir = (name: string) => path.join(pkg, name) + path.sep;
  assetDirs = {
    standardFontDataUrl: dir('standard_fonts'),
    cMapUrl: dir('cmaps'),
    wasmUrl: dir('wasm'),
    iccUrl: dir('iccs'),
  };
  return assetDirs;
}

/** Checks the `%PDF-` signature (the PDF reference allows it anywhere in the first 1024 bytes). */
export function looksLikePdf(head: Uint8Array): boolean {
  const text = Buffer.from(head.subarray(0, 1024)).toString('latin1');
  return text.includes('%PDF-');
}

export async function readPdfBytes(filePath: string): Promise<Uint8Array> {
  const buf = await fs.readFile(filePath);
  if (!looksLikePdf(buf)) throw new ParseError('not_a_pdf', 'The file is not a PDF (no %PDF- header).');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** Opens a PDF with pdf.js and turns its exceptions into ParseErrors with readable reasons. */
export async function openPdf(filePath: string, bytes?: Uint8Array): Promise<PDFDocumentProxy> {
  const pdfjs = loadPdfjs();
  // pdf.js may take ownership of the buffer, so it always gets its own copy.
  const data = bytes ? bytes.slice() : await readPdfBytes(filePath);
  const task = pdfjs.getDocument({
    data,
    ...pdfjsAssets(),
    cMapPacked: true,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    verbosity: 0,
  });
  try {
    return await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    throw toParseError(err);
  }
}

export function toParseError(err: unknown, pageNumber?: number): ParseError {
  if (err instanceof ParseError) return err;
  const name = (err as { name?: string })?.name ?? '';
  const message = (err as { message?: string })?.message ?? String(err);
  if (name === 'PasswordException') {
    return new ParseError('encrypted_pdf', 'The PDF is password-protected; upload an unencrypted copy.', {
      cause: err,
      pageNumber,
    });
  }
  if (name === 'InvalidPDFException') {
    return new ParseError('corrupt_pdf', `The PDF is damaged and cannot be read (${message}).`, {
      cause: err,
      pageNumber,
    });
  }
  return new ParseError('corrupt_pdf', `The PDF could not be processed: ${message}`, { cause: err, pageNumber });
}

/** A page's size in points (UserUnit included, as pdf.js' viewport has it), from a short-lived document. */
export async function pagePointSize(filePath: string, pageNumber: number): Promise<{ width: number; height: number }> {
  const doc = await openPdf(filePath);
  try {
    const page = await doc.getPage(Math.min(pageNumber, doc.numPages));
    const vp = page.getViewport({ scale: 1 });
    return { width: vp.width, height: vp.height };
  } finally {
    await closePdf(doc);
  }
}

/** Destroys a document, first ending pdf.js work left waiting on pages over their budget. Never throws. */
export async function closePdf(doc: PDFDocumentProxy | undefined): Promise<void> {
  if (!doc) return;
  await releaseAbandoned(doc).catch(() => undefined);
  await doc.destroy().catch(() => undefined);
}
