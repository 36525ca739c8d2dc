// `pnpm bench [--only NAME]`: runs every benchmark module in bench/ and services/*/bench/
// (*.bench.ts, each exporting `name` and `run(): Promise<Row[]>`) one after the other, prints a table per benchmark, and writes
// bench/out/<name>.json. Exits 1 if any benchmark failed.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { machine, type BenchModule, type Row } from './lib';

const BENCH_DIR = __dirname;
const OUT_DIR = path.join(BENCH_DIR, 'out');

function parseArgs(argv: string[]) {
  let only: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--only') only = argv[++i];
    else if (a.startsWith('--only=')) only = a.slice('--only='.length);
    else if (a === '--help' || a === '-h') {
      process.stdout.write('usage: pnpm bench [--only NAME]\n');
      process.exit(0);
    } else if (a !== '--') throw new Error(`unknown argument: ${a}`);
  }
  if (argv.includes('--only') && !only) throw new Error('--only needs a benchmark name');
  return { only };
}

/** bench/*.bench.ts, then a service's own benchmarks (services/<name>/bench/*.bench.ts, e.g. the gateway's). */
async function benchFiles(): Promise<string[]> {
  const own = (await readdir(BENCH_DIR)).filter((f) => f.endsWith('.bench.ts')).sort();
  const out = own.map((f) => path.join(BENCH_DIR, f));
  const services = path.join(BENCH_DIR, '..', 'services');
  for (const svc of (await readdir(services)).sort()) {
    const dir = path.join(services, svc, 'bench');
    const found = await readdir(dir).catch(() => [] as string[]);
    out.push(
      ...found
        .filter((f) => f.endsWith('.bench.ts'))
        .sort()
        .map((f) => path.join(dir, f)),
    );
  }
  return out;
}

async function loadModules(): Promise<BenchModule[]> {
  const mods: BenchModule[] = [];
  for (const file of await benchFiles()) {
    const f = path.relative(path.join(BENCH_DIR, '..'), file);
    const m = (await import(file)) as Partial<BenchModule> & { default?: Partial<BenchModule> };
    const mod = typeof m.run === 'function' ? m : m.default;
    if (!mod || typeof mod.name !== 'string' || typeof mod.run !== 'function')
      throw new Error(`${f} does not export name and run()`);
    mods.push(mod as BenchModule);
  }
  return mods;
}

const fmt = (n: number | undefined) =>
  n === undefined || Number.isNaN(n) ? '' : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);

export function renderTable(rows: Row[]): string {
  const header = ['case', 'throughput', 'p50 ms', 'p99 ms', 'slowdown', 'n', 'note'];
  const body = rows.map((r) => [
    r.case + (r.baseline ? ' *' : ''),
    `${fmt(r.throughput)} ${r.unit}`,
    fmt(r.p50_ms),
    fmt(r.p99_ms),
    r.slowdown === undefined ? '' : `${r.slowdown.toFixed(2)}x`,
    r.samples === undefined ? '' : String(r.samples),
    r.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const right = new Set([1, 2, 3, 4, 5]);
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

async function main() {
  const { only } = parseArgs(process.argv.slice(2));
  const all = await loadModules();
  const selected = only ? all.filter((m) => m.name === only) : all;
  if (!selected.length) throw new Error(`no benchmark named '${only}'; have: ${all.map((m) => m.name).join(', ')}`);
  await mkdir(OUT_DIR, { recursive: true });
  let failed = 0;
  for (const m of selected) {
    process.stdout.write(`\n== ${m.name}\n`);
    const started = new Date();
    const t0 = Date.now();
    try {
      const rows = await m.run();
      const seconds = Math.round((Date.now() - t0) / 100) / 10;
      process.stdout.write(
        `${renderTable(rows)}\n(* baseline; slowdown = baseline throughput / row throughput; ${seconds} s)\n`,
      );
      const out = path.join(OUT_DIR, `${m.name}.json`);
      await writeFile(
        out,
        JSON.stringify(
          { name: m.name, started_at: started.toISOString(), seconds, machine: machine(), rows },
          null,
          2,
        ) + '\n',
      );
      process.stdout.write(`wrote ${path.relative(process.cwd(), out)}\n`);
    } catch (err) {
      failed++;
      process.stderr.write(`benchmark ${m.name} failed: ${(err as Error).stack ?? err}\n`);
    }
  }
  // Prisma pools, Redis clients and autocannon workers can keep the loop alive after close().
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  process.stderr.write(`bench: ${(err as Error).message}\n`);
  process.exit(1);
});
