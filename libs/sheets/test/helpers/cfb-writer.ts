// A minimal, structurally valid OLE compound file (CFB v3, 512-byte sectors) with the given streams,
// as Office writes for password-protected workbooks (EncryptionInfo + EncryptedPackage) and for
// legacy .xls files (Workbook). Streams are stored in regular sectors (each padded to >= 4096 bytes,
// the mini-stream cutoff), so no mini FAT is needed.
import { writeFileSync } from 'node:fs';

const SECTOR = 512;
const ENDOFCHAIN = 0xfffffffe;
const FREESECT = 0xffffffff;
const FATSECT = 0xfffffffd;
const NOSTREAM = 0xffffffff;

export function compoundFileBuffer(streams: Array<{ name: string; data: Buffer }>): Buffer {
  if (streams.length > 3) throw new Error('helper supports up to 3 streams (one directory sector)');
  const padded = streams.map((s) => {
    const size = Math.max(s.data.length, 4096);
    const buf = Buffer.alloc(Math.ceil(size / SECTOR) * SECTOR);
    s.data.copy(buf);
    return { name: s.name, data: buf, size };
  });
  // Sector 0: FAT, sector 1: directory, then the streams.
  const fat = new Array<number>(SECTOR / 4).fill(FREESECT);
  fat[0] = FATSECT;
  fat[1] = ENDOFCHAIN;
  let next = 2;
  const starts: number[] = [];
  for (const s of padded) {
    const n = s.data.length / SECTOR;
    starts.push(next);
    for (let k = 0; k < n; k++) fat[next + k] = k === n - 1 ? ENDOFCHAIN : next + k + 1;
    next += n;
  }
  if (next > SECTOR / 4) throw new Error('streams too large for one FAT sector');

  const header = Buffer.alloc(SECTOR);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(header, 0);
  header.writeUInt16LE(0x003e, 24);
  header.writeUInt16LE(0x0003, 26);
  header.writeUInt16LE(0xfffe, 28);
  header.writeUInt16LE(9, 30);
  header.writeUInt16LE(6, 32);
  header.writeUInt32LE(1, 44); // FAT sectors
  header.writeUInt32LE(1, 48); // first directory sector
  header.writeUInt32LE(4096, 56); // mini stream cutoff
  header.writeUInt32LE(ENDOFCHAIN, 60);
  header.writeUInt32LE(ENDOFCHAIN, 68);
  for (let k = 0; k < 109; k++) header.writeUInt32LE(k === 0 ? 0 : FREESECT, 76 + k * 4);

  const fatSector = Buffer.alloc(SECTOR);
  fat.forEach((v, k) => fatSector.writeUInt32LE(v >>> 0, k * 4));

  // Directory: root, then the streams chained as right siblings (a valid, if unbalanced, tree).
  const dir = Buffer.alloc(SECTOR);
  const entry = (k: number, name: string, type: number, child: number, right: number, start: number, size: number) => {
    const base = k * 128;
    const n = Buffer.from(`${name}\0`, 'utf16le');
    n.copy(dir, base);
    dir.writeUInt16LE(n.length, base + 64);
    dir.writeUInt8(type, base + 66);
    dir.writeUInt8(1, base + 67);
    dir.writeUInt32LE(NOSTREAM, base + 68);
    dir.writeUInt32LE(right, base + 72);
    dir.writeUInt32LE(child, base + 76);
    dir.writeUInt32LE(start >>> 0, base + 116);
    dir.writeUInt32LE(size, base + 120);
  };
  entry(0, 'Root Entry', 5, padded.length ? 1 : NOSTREAM, NOSTREAM, ENDOFCHAIN, 0);
  padded.forEach((s, k) =>
    entry(k + 1, s.name, 2, NOSTREAM, k + 1 < padded.length ? k + 2 : NOSTREAM, starts[k]!, s.size),
  );
  return Buffer.concat([header, fatSector, dir, ...padded.map((s) => s.data)]);
}

export function writeCompoundFile(path: string, streams: Array<{ name: string; data: Buffer }>): string {
  writeFileSync(path, compoundFileBuffer(streams));
  return path;
}

/** What Excel writes for a workbook with an open password (agile encryption), minus real crypto. */
export function encryptedWorkbookStreams(): Array<{ name: string; data: Buffer }> {
  const info = Buffer.concat([
    Buffer.from([4, 0, 4, 0, 0x40, 0, 0, 0]),
    Buffer.from(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><encryption xmlns="http://schemas.microsoft.com/office/2006/encryption"><keyData saltSize="16" blockSize="16" keyBits="256" hashSize="64" cipherAlgorithm="AES" cipherChaining="ChainingModeCBC" hashAlgorithm="SHA512"/></encryption>',
    ),
  ]);
  const pkg = Buffer.alloc(8192);
  for (let k = 0; k < pkg.length; k++) pkg[k] = (k * 131 + 7) & 0xff;
  return [
    { name: 'EncryptionInfo', data: info },
    { name: 'EncryptedPackage', data: pkg },
  ];
}
