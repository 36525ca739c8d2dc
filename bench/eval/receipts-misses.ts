// Per-receipt listing of the key fields extraction got wrong, each put down to the OCR text or to the
// finders: a miss whose true value appears in the parse's text (case and whitespace aside; dates and
// totals as any date or amount on it) is the finders' (logic), else the text's (ocr), shown with the
// closest stretch of the text and its edit distance (approximate substring match).
//   pnpm exec tsx bench/eval/receipts-bundles.ts DIR --out RESULTS.json
//   pnpm exec tsx bench/eval/receipts-misses.ts DIR RESULTS.json [--corpus DIR]
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Segment } from '../../libs/contracts/src';
import { findAmounts } from '../../libs/models/src/local/text/amounts';
import { findDates } from '../../libs/models/src/local/text/dates';
import { RECEIPT_FIELDS, compareReceiptField, receiptKey, type ReceiptField } from '../../libs/models/eval/receipts';

const squash = (s: string) => s.toUpperCase().replace(/\s+/g, '');

/** Smallest edit distance between `needle` and any substring of `hay`, and that substring's end. */
export function closestSubstring(needle: string, hay: string): { distance: number; text: string } {
  const m = needle.length;
  let prev = Array.from({ length: m + 1 }, (_, i) => i);
  const start = Array.from({ length: m + 1 }, () => 0);
  let best = { distance: m, end: 0, start: 0 };
  for (let j = 1; j <= hay.length; j++) {
    const cur = [0];
    const curStart = [j];
    for (let i = 1; i <= m; i++) {
      const sub = prev[i - 1]! + (needle[i - 1] === hay[j - 1] ? 0 : 1);
      const del = prev[i]! + 1;
      const ins = cur[i - 1]! + 1;
      const v = Math.min(sub, del, ins);
      cur.push(v);
      curStart.push(v === sub ? (i === 1 ? j - 1 : start[i - 1]!) : v === del ? start[i]! : curStart[i - 1]!);
    }
    for (let i = 0; i <= m; i++) start[i] = curStart[i]!;
    if (cur[m]! < best.distance) best = { distance: cur[m]!, end: j, start: start[m]! };
    prev = cur;
  }
  return { distance: best.distance, text: hay.slice(best.start, best.end) };
}

async function main(argv: string[]) {
  const [dir, results] = argv;
  const rows = JSON.parse(await readFile(results!, 'utf8')) as Array<{
    doc: string;
    half: string;
    predicted: Record<string, unknown>;
    expected: Record<ReceiptField, string>;
  }>;
  const tally: Record<string, number> = {};
  for (const r of rows) {
    const b = JSON.parse(await readFile(path.join(dir!, r.doc), 'utf8')) as { segments: Segment[] };
    const text = b.segments.map((s) => s.markdown).join('\n');
    const lines: string[] = [];
    for (const f of RECEIPT_FIELDS) {
      const c = compareReceiptField(f, r.expected[f], r.predicted[f] ?? null);
      if (c.tp || !r.expected[f]) continue;
      let cause: string,
        near = '';
      if (f === 'date' || f === 'total') {
        const want = receiptKey(f, r.expected[f], true);
        const seen =
          f === 'date'
            ? findDates(text).map((d) => d.iso)
            : findAmounts(text, { requireMoneyShape: false }).map((a) => a.value.toFixed(2));
        cause = seen.includes(want!) ? 'logic' : 'ocr';
      } else {
        const t = squash(r.expected[f]);
        const hay = squash(text);
        if (hay.includes(t)) cause = 'logic';
        else {
          const c2 = closestSubstring(t, hay);
          cause = 'ocr';
          near = ` closest ${JSON.stringify(c2.text)} (${c2.distance} edits, ${((100 * c2.distance) / t.length).toFixed(0)}%)`;
        }
      }
      tally[`${f} ${cause}`] = (tally[`${f} ${cause}`] ?? 0) + 1;
      lines.push(
        `  ${f} [${cause}] got ${JSON.stringify(r.predicted[f] ?? null)} want ${JSON.stringify(r.expected[f])}${near}`,
      );
    }
    if (lines.length) console.log(`${r.doc.replace(/\.json$/, '')} (${r.half})\n${lines.join('\n')}`);
  }
  console.log(
    Object.entries(tally)
      .sort()
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
  );
}

if (require.main === module)
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
