// The files an upload names: files as given, folders walked recursively in name order. Hidden
// entries (dot names) inside folders are skipped, and symlinked folders are not followed inside a
// walk (a link back up would loop); anything that is not a regular file is refused.
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { usage } from './context';

export interface LocalFile {
  path: string;
  size: number;
}

async function walk(dir: string, out: LocalFile[]): Promise<void> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) await walk(p, out);
    else if (e.isFile()) out.push({ path: p, size: (await stat(p)).size });
    else if (e.isSymbolicLink()) {
      const st = await stat(p).catch(() => undefined);
      if (st?.isFile()) out.push({ path: p, size: st.size });
    }
  }
}

export async function collectFiles(args: string[]): Promise<LocalFile[]> {
  const out: LocalFile[] = [];
  for (const arg of args) {
    const abs = path.resolve(arg);
    const st = await stat(abs).catch(() => undefined);
    if (!st) usage(`${arg}: no such file or folder`);
    if (st.isDirectory()) await walk(abs, out);
    else if (st.isFile()) out.push({ path: abs, size: st.size });
    else usage(`${arg}: not a regular file or folder`);
  }
  // The same file named twice (a file and its folder) is uploaded once.
  const seen = new Set<string>();
  const unique = out.filter((f) => !seen.has(f.path) && seen.add(f.path));
  return unique;
}
