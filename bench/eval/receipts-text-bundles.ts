// Bundles for bench/eval/receipts-bundles.ts from other texts of the same receipts, to tell what the
// extraction loses to OCR from what it loses by itself: the SROIE line transcripts (`<n>.csv`: boxes
// grouped into rows, left to right) or raw `tesseract` output of the image. Each bundle keeps the
// dumped parse's segment (id, page) with its markdown replaced by the text, one line per paragraph.
//   pnpm exec tsx bench/eval/receipts-text-bundles.ts DUMP_DIR OUT_DIR --from truth|tesseract [--psm N] [--corpus DIR]
import { execFileSync } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Segment } from '../../libs/contracts/src';

interface Box {
  top: number;
  bottom: number;
  left: number;
  text: string;
}

/** SROIE transcript rows: 8 coordinates then the text (which may contain commas). */
function transcriptLines(csv: string): string[] {
  const boxes: Box[] = [];
  for (const row of csv.split(/\r?\n/)) {
    const f = row.split(',');
    if (f.length < 9) continue;
    const n = f.slice(0, 8).map(Number);
    const text = f.slice(8).join(',').trim();
    if (!text || n.some((v) => Number.isNaN(v))) continue;
    const ys = [n[1]!, n[3]!, n[5]!, n[7]!],
      xs = [n[0]!, n[2]!, n[4]!, n[6]!];
    boxes.push({ top: Math.min(...ys), bottom: Math.max(...ys), left: Math.min(...xs), text });
  }
  // A box joins the first row whose vertical span holds its centre.
  const rows: Array<{ top: number; bottom: number; boxes: Box[] }> = [];
  for (const b of boxes.sort((a, c) => a.top - c.top || a.left - c.left)) {
    const mid = (b.top + b.bottom) / 2;
    const row = rows.find((r) => r.top <= mid && mid <= r.bottom);
    if (row) row.boxes.push(b);
    else rows.push({ top: b.top, bottom: b.bottom, boxes: [b] });
  }
  return rows.map((r) =>
    r.boxes
      .sort((a, c) => a.left - c.left)
      .map((b) => b.text)
      .join(' '),
  );
}

async function main(argv: string[]) {
  const [dump, out] = argv;
  const valueOf = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const from = valueOf('--from');
  if (!dump || !out || (from !== 'truth' && from !== 'tesseract')) {
    console.error('usage: receipts-text-bundles.ts DUMP_DIR OUT_DIR --from truth|tesseract [--psm N] [--corpus DIR]');
    process.exit(2);
  }
  const corpus = path.resolve(valueOf('--corpus') ?? process.env.DOCFLEET_CORPUS ?? '../shared/corpus');
  await mkdir(out, { recursive: true });
  for (const file of (await readdir(dump)).filter((f) => f.endsWith('.json')).sort()) {
    const b = JSON.parse(await readFile(path.join(dump, file), 'utf8')) as { path: string; segments: Segment[] };
    const image = path.join(corpus, b.path);
    const lines =
      from === 'truth'
        ? transcriptLines(await readFile(image.replace(/\.\w+$/, '.csv'), 'utf8'))
        : execFileSync(
            'tesseract',
            [image, '-', '-l', 'eng', ...(valueOf('--psm') ? ['--psm', valueOf('--psm')!] : [])],
            {
              encoding: 'utf8',
              stdio: ['ignore', 'pipe', 'ignore'],
            },
          )
            .split('\n')
            .map((l) => l.trim())
            .filter(Boolean);
    const segments = [{ ...b.segments[0]!, markdown: lines.join('\n\n') }];
    await writeFile(path.join(out, file), JSON.stringify({ path: b.path, segments }));
  }
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
