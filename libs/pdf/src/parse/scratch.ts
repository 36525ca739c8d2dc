// Scratch folders of a parse (page rasters, OCR prefetch) live in the OS temp dir, named after the
// process that made them: `docfleet-<kind>-<pid>-XXXXXX`. A parse removes its own when it ends; a
// worker killed mid-parse (kill -9, OOM) cannot, so the next worker to start removes every such
// folder whose process is gone (issue 13.2).
import { mkdtempSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export type ScratchKind = 'pdf' | 'ocr';
const NAME = /^docfleet-(pdf|ocr)-(\d+)-[A-Za-z0-9]{6}$/;

export function scratchPrefix(kind: ScratchKind, dir = os.tmpdir()): string {
  return path.join(dir, `docfleet-${kind}-${process.pid}-`);
}

export const makeScratchDir = (kind: ScratchKind) => fs.mkdtemp(scratchPrefix(kind));
export const makeScratchDirSync = (kind: ScratchKind) => mkdtempSync(scratchPrefix(kind));

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is just not ours to signal.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the scratch folders of processes that no longer run; returns the paths removed. */
export async function removeDeadScratch(dir = os.tmpdir()): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m || Number(m[2]) === process.pid || processAlive(Number(m[2]))) continue;
    const p = path.join(dir, name);
    await fs.rm(p, { recursive: true, force: true }).then(
      () => removed.push(p),
      () => undefined,
    );
  }
  return removed;
}
