// Writes a downloaded record into a directory without ever overwriting: the name comes from the
// record's title (made safe for any filesystem), and a taken name gets " (2)", " (3)" … The
// exclusive create ('wx') makes the check and the write one step.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export function safePdfName(title: string): string {
  const base = title
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N} ._-]+/gu, '_')
    .replace(/^[\s._-]+|[\s._-]+$/g, '')
    .slice(0, 120);
  return base || 'record';
}

export async function savePdf(dir: string, title: string, bytes: Buffer): Promise<string> {
  await mkdir(dir, { recursive: true });
  const base = safePdfName(title);
  for (let n = 1; n < 1000; n++) {
    const file = path.join(dir, n === 1 ? `${base}.pdf` : `${base} (${n}).pdf`);
    try {
      await writeFile(file, bytes, { flag: 'wx' });
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  throw new Error(`too many files named ${base}*.pdf in ${dir}`);
}
