import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The shared corpus sits beside the repository (…/shared/corpus); DOCFLEET_CORPUS_DIR overrides. */
export const CORPUS_DIR = process.env.DOCFLEET_CORPUS_DIR ?? path.resolve(__dirname, '../../../../../shared/corpus');
export const SHEETS_CORPUS = path.join(CORPUS_DIR, 'd_spreadsheets');

export function tempDir(prefix: string): { dir: string; file: (name: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), `docfleet-sheets-${prefix}-`));
  return { dir, file: (name) => path.join(dir, name), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
