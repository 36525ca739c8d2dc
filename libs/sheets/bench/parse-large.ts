// Benchmark: parse a ~50 MB xlsx (generated with exceljs' streaming writer) in a fresh process and
// report wall time and peak RSS. Usage, from the repo root:
//   pnpm exec tsx libs/sheets/bench/parse-large.ts [--mb 50] [--file PATH] [--heap MB]
// The workbook is cached in the OS temp dir and regenerated when missing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSheetSegments, parseSpreadsheet } from '../src';
import { generateLargeWorkbook } from './generate-large';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1]! : fallback;
}

async function child(file: string, outDir: string): Promise<void> {
  let sampledPeak = 0;
  const timer = setInterval(() => {
    sampledPeak = Math.max(sampledPeak, process.memoryUsage().rss);
  }, 50);
  const t0 = performance.now();
  try {
    const result = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'bench.xlsx', outDir });
    const parseMs = performance.now() - t0;
    const segments = buildSheetSegments(result, { fileId: 'bench', docName: 'bench.xlsx', manifestId: 'bench' });
    const totalMs = performance.now() - t0;
    clearInterval(timer);
    const sizes = Object.fromEntries(
      Object.entries(result.artifacts!).map(([k, p]) => [k, Math.round(statSync(p).size / 1048576)]),
    );
    console.log(
      JSON.stringify({
        fileMB: +(statSync(file).size / 1048576).toFixed(1),
        sheets: result.sheetCount,
        cells: result.stats.cellCount,
        tables: result.tables.tables.length,
        segments: segments.length,
        parseSeconds: +(parseMs / 1000).toFixed(1),
        parsePlusSegmentsSeconds: +(totalMs / 1000).toFixed(1),
        peakRssMB: Math.round(Math.max(sampledPeak, process.resourceUsage().maxRSS * 1024) / 1048576),
        artifactMB: sizes,
      }),
    );
  } finally {
    clearInterval(timer);
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--child')) return child(arg('file', ''), arg('out', ''));
  const mb = Number(arg('mb', '50'));
  const file = arg('file', join(tmpdir(), `docfleet-sheets-bench-${mb}mb.xlsx`));
  if (!existsSync(file)) {
    const t0 = performance.now();
    const g = await generateLargeWorkbook(file, mb * 1024 * 1024);
    console.log(JSON.stringify({ generated: file, ...g, seconds: +((performance.now() - t0) / 1000).toFixed(1) }));
  }
  const heap = arg('heap', '');
  // The parent owns the output directory so it is removed even when the child runs out of memory.
  const outDir = mkdtempSync(join(tmpdir(), 'docfleet-sheets-bench-out-'));
  try {
    const nodeArgs = [
      ...(heap ? [`--max-old-space-size=${heap}`] : []),
      '--import',
      'tsx',
      __filename,
      '--child',
      '--file',
      file,
      '--out',
      outDir,
    ];
    const run = spawnSync(process.execPath, nodeArgs, { stdio: 'inherit' });
    process.exitCode = run.status ?? 1;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
