// Minimal PPM/PGM (P6/P5, 8-bit) reader. pdftoppm writes these uncompressed, which is far
// cheaper than PNG, and sharp's bundled libvips has no PPM loader, so we hand it raw pixels.
import fs from 'node:fs/promises';

export interface RawImage {
  width: number;
  height: number;
  channels: 1 | 3;
  data: Buffer;
}

export function parsePnm(buf: Buffer): RawImage {
  const magic = buf.toString('latin1', 0, 2);
  if (magic !== 'P6' && magic !== 'P5') throw new Error(`not a binary PNM image (${magic})`);
  let pos = 2;
  const fields: number[] = [];
  while (fields.length < 3) {
    while (pos < buf.length && /\s/.test(String.fromCharCode(buf[pos]!))) pos++;
    if (buf[pos] === 0x23) {
      while (pos < buf.length && buf[pos] !== 0x0a) pos++;
      continue;
    } // comment
    let start = pos;
    while (pos < buf.length && buf[pos]! >= 0x30 && buf[pos]! <= 0x39) pos++;
    if (start === pos) throw new Error('malformed PNM header');
    fields.push(Number(buf.toString('latin1', start, pos)));
  }
  pos++; // single whitespace after maxval
  const [width, height, maxval] = fields as [number, number, number];
  if (maxval !== 255) throw new Error(`unsupported PNM maxval ${maxval}`);
  const channels = magic === 'P6' ? 3 : 1;
  const data = buf.subarray(pos, pos + width * height * channels);
  if (data.length < width * height * channels) throw new Error('truncated PNM data');
  return { width, height, channels, data };
}

export async function readPnm(file: string): Promise<RawImage> {
  return parsePnm(await fs.readFile(file));
}
