// `pnpm eval:text [corpusDir] [--json out.json] [--no-peers] [--only a,b]`: text fidelity as the py-pdf
// benchmark scores it (Levenshtein ratio of the whole document's text against the reference,
// markdown stripped, whitespace collapsed), for docfleet and, in the same run on the same files,
// PyMuPDF, pypdf (Debian python3-fitz, python3-pypdf) and pdftotext (poppler-utils). A peer that
// is not installed is reported as such; the run does not fail. docfleet is this repository's parse
// library (inspect-free `text` backend, no page images: the same layout code the worker runs).
import fs from 'node:fs/promises';
import path from 'node:path';
import { evaluateText, meanScore, textReferenceDocs, textReport } from '../libs/pdf/eval/text-eval';
import { libraryParse } from '../libs/pdf/eval/library-parse';

const ROOT = path.resolve(__dirname, '..');

async function main(argv: string[]): Promise<number> {
  const jsonAt = argv.indexOf('--json');
  const jsonOut = jsonAt >= 0 ? argv[jsonAt + 1] : undefined;
  // --only a,b: rows whose path contains one of the strings (a quick look at a few documents).
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? (argv[onlyAt + 1] ?? '').split(',').filter(Boolean) : undefined;
  const positional = argv.filter(
    (a, i) => !a.startsWith('--') && (jsonAt < 0 || i !== jsonAt + 1) && (onlyAt < 0 || i !== onlyAt + 1),
  );
  const corpus = path.resolve(positional[0] ?? path.resolve(ROOT, '../shared/corpus'));
  // pdf.js compiles and caches on first use: one untimed warm-up parse keeps that out of the first row's seconds.
  const warm = (await textReferenceDocs(corpus))[0];
  if (warm) await libraryParse(warm.file, 'pdf', 'text').catch(() => undefined);
  const started = Date.now();
  const { rows, available } = await evaluateText(corpus, libraryParse, {
    peers: !argv.includes('--no-peers'),
    scriptsDir: path.join(ROOT, 'scripts'),
    ...(only ? { only: (rel: string) => only.some((o) => rel.includes(o)) } : {}),
    log: (s) => process.stderr.write(`${s}\n`),
  });
  for (const [k, v] of Object.entries(available))
    if (!v)
      process.stderr.write(`note: ${k} is not installed; its column says so (bash scripts/setup.sh installs it)\n`);
  console.log(
    textReport(rows, available, [
      { name: 'plain-text references (papers and book)', test: (r) => r.kind === 'plain' },
      { name: 'docling markdown references', test: (r) => r.kind === 'markdown' },
      { name: 'without right-to-left', test: (r) => !/right_to_left/.test(r.doc) },
    ]),
  );
  const d = meanScore(rows, 'docfleet'),
    m = meanScore(rows, 'pymupdf');
  if (d !== undefined && m !== undefined) console.log(`\ndocfleet − PyMuPDF: ${(d - m).toFixed(1)} points`);
  console.log(`(${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (jsonOut) await fs.writeFile(jsonOut, JSON.stringify({ available, rows }, null, 2));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
