// Identifies what a file really is from its bytes, whatever its name says.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

export type FileSignature = 'zip' | 'cfb' | 'other';

const CFB_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

export async function readHead(path: string, length: number): Promise<Buffer> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

export function signatureOf(head: Buffer): FileSignature {
  if (head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && (head[2] === 3 || head[2] === 5 || head[2] === 7))
    return 'zip';
  if (head.length >= 8 && head.subarray(0, 8).equals(CFB_MAGIC)) return 'cfb';
  return 'other';
}

// Office encryption (ECMA-376 agile/standard) wraps the real xlsx in an OLE compound file whose
// directory names the streams 'EncryptionInfo' and 'EncryptedPackage' (UTF-16LE).
const ENCRYPTED_MARKERS = ['EncryptedPackage', 'EncryptionInfo'].map((s) => Buffer.from(s, 'utf16le'));
const XLS_MARKERS = ['Workbook', 'Book'].map((s) => Buffer.from(`${s}\0`, 'utf16le'));

/**
 * Scans a compound file for the directory entries that mark an encrypted OOXML package or a
 * legacy BIFF workbook. A linear scan in fixed-size chunks: bounded memory, no CFB parser needed.
 */
export async function inspectCompoundFile(path: string): Promise<{ encrypted: boolean; legacyXls: boolean }> {
  const overlap = 64;
  let tail = Buffer.alloc(0);
  let encrypted = false;
  let legacyXls = false;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const buf = Buffer.concat([tail, chunk as Buffer]);
    if (!encrypted && ENCRYPTED_MARKERS.some((m) => buf.includes(m))) encrypted = true;
    if (!legacyXls && XLS_MARKERS.some((m) => buf.includes(m))) legacyXls = true;
    if (encrypted) break;
    tail = buf.subarray(Math.max(0, buf.length - overlap));
  }
  return { encrypted, legacyXls };
}

/** A CSV is text: NUL bytes in the first kilobytes (outside UTF-16) mean a binary file. */
export function looksBinary(head: Buffer): boolean {
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)))
    return false;
  const n = Math.min(head.length, 8192);
  let controls = 0;
  for (let i = 0; i < n; i++) {
    const b = head[i]!;
    if (b === 0) return true;
    if (b < 9 || (b > 13 && b < 32 && b !== 27)) controls++;
  }
  return n > 0 && controls / n > 0.1;
}
