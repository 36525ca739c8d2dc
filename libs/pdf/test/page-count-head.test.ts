// The gateway's page estimate read from the PDF's structure (issue 17.4): a 10,000-page PDF in
// well under a second and a few MiB, classic xref tables and xref streams, incremental updates; a
// file it cannot read returns null (the estimate then loads the document), hostile structure (loops,
// bombs, nesting) ends quickly, and a lying /Count is only what the file claims.
import fs from 'node:fs/promises';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { countPages, inspectDocument, pageCountFromTrailer } from '../src';
import { closePdf, openPdf } from '../src/pdfjs-loader';
import { tempDir } from './helpers/fixtures';

let dir: string;
beforeAll(async () => {
  dir = await tempDir();
});

async function makePdf(pages: number, useObjectStreams: boolean): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 1; i <= pages; i++) doc.addPage([612, 792]).drawText(`Page ${i}`, { x: 72, y: 700, size: 11, font });
  return Buffer.from(await doc.save({ useObjectStreams }));
}

async function write(name: string, data: Buffer | string) {
  const f = path.join(dir, name);
  await fs.writeFile(f, data);
  return f;
}

async function pdfjsCount(f: string) {
  const d = await openPdf(f);
  try {
    return d.numPages;
  } finally {
    await closePdf(d);
  }
}

it('a 10,000-page PDF (xref stream, object streams): its count in < 1 s and < 200 MiB', async () => {
  const f = await write('p10k.pdf', await makePdf(10_000, true));
  await pageCountFromTrailer(f); // module and file cache warm, as in a running gateway
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const n = await countPages(f, 'pdf');
  const ms = performance.now() - t0;
  const grew = (process.memoryUsage().rss - rss0) / 1048576;
  expect(n).toBe(10_000);
  expect(ms).toBeLessThan(1000);
  expect(grew).toBeLessThan(200);
  process.stdout.write(`10,000-page estimate: ${ms.toFixed(0)} ms, RSS +${grew.toFixed(1)} MiB\n`);
}, 120_000);

it('a classic xref table with a 3,000-entry /Kids array', async () => {
  const f = await write('plain.pdf', await makePdf(3000, false));
  expect(await pageCountFromTrailer(f)).toBe(3000);
}, 60_000);

it('an incremental update that redefines the page tree: the newest section wins', async () => {
  const base = await makePdf(3, false);
  const text = base.toString('latin1');
  const pagesNum = Number(/(\d+) 0 obj\s*<<\s*\/Type \/Pages/.exec(text)![1]);
  const kids = /\/Kids \[([^\]]*)\]/.exec(text)![1]!.trim().split(/\s+/);
  const rootRef = /\/Root (\d+ \d+ R)/.exec(text)![1];
  const size = Number(/\/Size (\d+)/.exec(text)![1]);
  const prevXref = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))![1]);
  const obj = `${pagesNum} 0 obj\n<< /Type /Pages /Kids [${kids.slice(0, 6).join(' ')}] /Count 2 >>\nendobj\n`;
  const objAt = base.length + 1;
  const xrefAt = objAt + obj.length;
  const update =
    `\n${obj}xref\n${pagesNum} 1\n${String(objAt).padStart(10, '0')} 00000 n \n` +
    `trailer\n<< /Size ${size} /Root ${rootRef} /Prev ${prevXref} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  const f = await write('updated.pdf', Buffer.concat([base, Buffer.from(update, 'latin1')]));
  expect(await pageCountFromTrailer(f)).toBe(2);
  expect(await pdfjsCount(f)).toBe(2);
});

it('files it cannot read return null, and the estimate falls back to loading them', async () => {
  const good = await makePdf(5, true);
  expect(await pageCountFromTrailer(await write('garbage.pdf', Buffer.alloc(5000, 0x41)))).toBeNull();
  // Cut in half: no startxref; pdf.js reconstructs what it can (or refuses it).
  const half = await write('half.pdf', good.subarray(0, Math.floor(good.length / 2)));
  expect(await pageCountFromTrailer(half)).toBeNull();
  // A startxref that points nowhere: pdf.js rebuilds the xref by scanning, the estimate follows it.
  const s = good.toString('latin1');
  const at = s.lastIndexOf('startxref');
  const moved = await write('moved.pdf', Buffer.from(s.slice(0, at) + 'startxref\n17\n%%EOF\n', 'latin1'));
  expect(await pageCountFromTrailer(moved)).toBeNull();
  expect(await countPages(moved, 'pdf')).toBe(5);
  await expect(pageCountFromTrailer(path.join(dir, 'missing.pdf'))).rejects.toThrow();
});

it('hostile structure ends quickly: xref loops, nesting, decompression bombs', async () => {
  let spent = 0;
  const timed = async (f: string) => {
    const t = performance.now();
    const n = await pageCountFromTrailer(f);
    spent += performance.now() - t;
    return n;
  };
  // /Prev pointing at itself.
  const loop = `%PDF-1.7\nxref\n0 1\n0000000000 65535 f \ntrailer\n<< /Size 1 /Root 1 0 R /Prev 9 >>\nstartxref\n9\n%%EOF\n`;
  expect(await timed(await write('loop.pdf', loop))).toBeNull();
  // A catalog nested 100,000 arrays deep.
  const deep = `%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages ${'['.repeat(100_000)} >>\nendobj\n`;
  const deepXref = deep.length;
  const deepFile = `${deep}xref\n0 2\n0000000000 65535 f \n0000000009 00000 n \ntrailer\n<< /Size 2 /Root 1 0 R >>\nstartxref\n${deepXref}\n%%EOF\n`;
  expect(await timed(await write('deep.pdf', deepFile))).toBeNull();
  // An xref stream that inflates to 256 MiB (the reader stops at 32 MiB).
  const { deflateSync } = await import('node:zlib');
  const bomb = deflateSync(Buffer.alloc(256 * 1024 * 1024, 0), { level: 1 });
  const head = `%PDF-1.7\n1 0 obj\n<< /Type /XRef /W [1 4 2] /Size 1 /Root 2 0 R /Filter /FlateDecode /Length ${bomb.length} >>\nstream\n`;
  const bombFile = Buffer.concat([
    Buffer.from(head, 'latin1'),
    bomb,
    Buffer.from(`\nendstream\nendobj\nstartxref\n9\n%%EOF\n`, 'latin1'),
  ]);
  expect(await timed(await write('bomb.pdf', bombFile))).toBeNull();
  expect(spent).toBeLessThan(3000);
}, 60_000);

it('a lying /Count is only a claim: too few is what pdf.js parses too, too many the worker refuses', async () => {
  const good = (await makePdf(40, false)).toString('latin1');
  // Same width, so every offset stays right.
  const fewer = await write('fewer.pdf', Buffer.from(good.replace('/Count 40', '/Count 1 '), 'latin1'));
  expect(await pageCountFromTrailer(fewer)).toBe(1);
  // pdf.js (the worker's reader) trusts a smaller /Count too: one page is parsed and charged.
  expect(await pdfjsCount(fewer)).toBe(1);
  const more = await write('more.pdf', Buffer.from(good.replace('/Count 40', '/Count 99'), 'latin1'));
  // The estimate reserves what the file claims; the worker counts the tree and refuses the file.
  expect(await pageCountFromTrailer(more)).toBe(99);
  expect(await pdfjsCount(more)).toBe(40);
  await expect(inspectDocument(more, 'pdf', { decideBackend: false })).rejects.toMatchObject({ code: 'invalid_pdf' });
});
