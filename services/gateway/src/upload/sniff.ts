/**
 * Content type from the first bytes, never from the client's name or header. docfleet parses a
 * closed set of formats, so a table of magic numbers is all it takes (the `file-type` package is
 * ESM-only, which the CommonJS test runtime cannot load).
 */
export interface Sniffed {
  contentType: string;
  kind: 'pdf' | 'image' | 'xlsx' | 'csv' | 'cfb';
}

const startsWith = (b: Buffer, sig: number[], offset = 0) => sig.every((v, i) => b[offset + i] === v);

function looksLikeText(b: Buffer): boolean {
  if (!b.length) return false;
  let bad = 0;
  for (const c of b) {
    if (c === 0) return false;
    if (c < 9 || (c > 13 && c < 32)) bad++;
  }
  return bad / b.length < 0.01;
}

export function sniffContentType(head: Buffer, filename: string): Sniffed | null {
  const ext = filename.toLowerCase().split('.').pop() ?? '';
  // %PDF may follow a little junk; readers accept it within the first 1024 bytes.
  if (head.subarray(0, 1024).includes(Buffer.from('%PDF-'))) return { contentType: 'application/pdf', kind: 'pdf' };
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
    return { contentType: 'image/png', kind: 'image' };
  if (startsWith(head, [0xff, 0xd8, 0xff])) return { contentType: 'image/jpeg', kind: 'image' };
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a]))
    return { contentType: 'image/tiff', kind: 'image' };
  if (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a')
    return { contentType: 'image/gif', kind: 'image' };
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP')
    return { contentType: 'image/webp', kind: 'image' };
  if (startsWith(head, [0x42, 0x4d]) && head.length > 14 && ext === 'bmp')
    return { contentType: 'image/bmp', kind: 'image' };
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04]) || startsWith(head, [0x50, 0x4b, 0x05, 0x06])) {
    // OOXML workbooks; a zip claiming to be a workbook is accepted and judged by the parser
    // (which refuses zip bombs and non-workbooks with a clear reason).
    const s = head.toString('latin1');
    if (s.includes('xl/') || ext === 'xlsx' || ext === 'xlsm')
      return { contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', kind: 'xlsx' };
    return null;
  }
  // OLE compound file: a password-protected xlsx or a legacy .xls. The parser explains which.
  if (
    startsWith(head, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]) &&
    (ext === 'xlsx' || ext === 'xls' || ext === 'xlsm')
  ) {
    return { contentType: 'application/x-cfb', kind: 'cfb' };
  }
  if (looksLikeText(head) && (ext === 'csv' || ext === 'tsv' || ext === 'txt')) {
    return { contentType: ext === 'tsv' ? 'text/tab-separated-values' : 'text/csv', kind: 'csv' };
  }
  return null;
}
