// A minimal zip writer for test fixtures: lets a test build archives a normal writer refuses to make
// (lying sizes, extreme ratios) and raw xlsx packages from hand-written XML.
import { writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { crc32, createDeflateRaw, deflateRawSync } from 'node:zlib';

export interface ZipInput {
  name: string;
  data: Buffer | string;
  /** Default deflate. */
  store?: boolean;
  /** Already-deflated bytes to put in the archive instead of compressing `data`. */
  deflated?: Buffer;
  /** Uncompressed size written to the headers (a lie when it differs from the data). */
  declaredSize?: number;
}

export function zipBuffer(entries: ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const raw = typeof e.data === 'string' ? Buffer.from(e.data, 'utf8') : e.data;
    const body = e.deflated ?? (e.store ? raw : deflateRawSync(raw));
    const method = e.store && !e.deflated ? 0 : 8;
    const size = e.declaredSize ?? raw.length;
    const name = Buffer.from(e.name, 'utf8');
    const crc = crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, body);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(entries.length, 8);
  eocd.writeUInt16LE(entries.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}

export function writeZip(path: string, entries: ZipInput[]): string {
  writeFileSync(path, zipBuffer(entries));
  return path;
}

/** Deflated run of `bytes` zero bytes, compressed in 1 MiB slices (never all in memory at once). */
export async function deflatedZeros(bytes: number): Promise<Buffer> {
  const chunk = Buffer.alloc(1024 * 1024);
  const d = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  d.on('data', (b: Buffer) => out.push(b));
  const done = once(d, 'end');
  for (let left = bytes; left > 0; left -= chunk.length) {
    if (!d.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await once(d, 'drain');
  }
  d.end();
  await done;
  return Buffer.concat(out);
}
