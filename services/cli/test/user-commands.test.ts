// The user commands end to end (`pnpm docfleet <cmd>`) against a running fleet (gateway, parse,
// index and workflow workers; startFleet of libs/testing), mostly with --json: stdout must
// be one JSON document, progress and messages go to stderr. Also: a folder uploaded recursively
// with a per-file failure report, live parse progress from the index, the progress bar on a
// terminal (through `script`, which gives the command a pseudo-terminal), and usage errors.
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { INVOICE_PDF, ROOT, offlineEnv, startFleet, waitUntil, type Fleet } from '@docfleet/testing';

const run = promisify(execFile);
let fleet: Fleet;
let key: string;
let kbId: string;
let invoiceId: string;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
/**
 * What `pnpm docfleet` runs, without pnpm's own start-up (seconds on a busy machine); one test
 * goes through `pnpm --silent docfleet` itself.
 */
const CLI = [process.execPath, '--import', 'tsx', 'services/cli/src/main.ts'];
async function docfleet(
  args: string[],
  env: Record<string, string | undefined> = {},
  via: string[] = CLI,
): Promise<Result> {
  try {
    const r = await run(via[0], [...via.slice(1), ...args], {
      cwd: ROOT,
      env: offlineEnv({ SERVICE_API_KEY: key, SERVICE_BASE_URL: fleet.url, ...env } as Record<string, string>),
      maxBuffer: 20 * 1024 * 1024,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}
/** Runs with --json and returns the parsed stdout (which must be exactly one JSON document). */
async function json<T = any>(args: string[], expectCode = 0): Promise<T> {
  const r = await docfleet([...args, '--json']);
  if (r.code !== expectCode)
    throw new Error(
      `docfleet ${args.join(' ')} exited ${r.code}, expected ${expectCode}:\n${r.stderr}\n${r.stdout}\n${fleet.logs()}`,
    );
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  fleet = await startFleet();
  ({ key } = await fleet.createOrg({ credits: 60 }));
}, 120_000);
afterAll(() => fleet?.close());

describe('pnpm docfleet (user commands)', () => {
  it('refuses to run without SERVICE_API_KEY or with unknown commands and flags, in a usage error (exit 2)', async () => {
    const noKey = await docfleet(['credits'], { SERVICE_API_KEY: undefined });
    expect(noKey).toMatchObject({ code: 2, stdout: '' });
    expect(noKey.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^docfleet: SERVICE_API_KEY is not set/)]);
    expect(await docfleet(['frobnicate'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown command "frobnicate"'),
    });
    expect(await docfleet(['credits', '--verbose'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Unknown option '--verbose'"),
    });
    expect(await docfleet(['upload', '/tmp'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('upload needs --kb KB_ID'),
    });
    expect(await docfleet(['parse', 'not-an-id'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('is not a file id'),
    });
  });

  it('reports API errors in one line with method, path, status and code, never the key (exit 1)', async () => {
    const wrong = await docfleet(['kb', 'list'], { SERVICE_API_KEY: 'dfk_wrong_but_secret_value' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr.trim()).toMatch(/^docfleet: GET \/v1\/knowledge-bases -> 401 invalid_api_key: /);
    expect(wrong.stderr + wrong.stdout).not.toContain('dfk_wrong_but_secret_value');
  });

  it('kb create and kb list', async () => {
    const created = await docfleet(['kb', 'create', 'CLI invoices', '--description', 'from the CLI', '--json'], {}, [
      'pnpm',
      '--silent',
      'docfleet',
    ]);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const kb = JSON.parse(created.stdout);
    kbId = kb.id;
    expect(kb).toMatchObject({ name: 'CLI invoices', description: 'from the CLI' });
    expect((await json(['kb', 'list'])).knowledge_bases.map((k: { id: string }) => k.id)).toContain(kbId);
    const text = await docfleet(['kb', 'list']);
    expect(text.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+CREATED\s+DESCRIPTION$/);
    expect(text.stdout).toContain(`${kbId}  CLI invoices`);
    expect((await docfleet(['kb', 'create', 'cli INVOICES'])).stderr).toMatch(/409 duplicate_knowledge_base_name/);
  });

  it('uploads a folder recursively (skipping hidden files) and reports per-file failures without stopping', async () => {
    const dir = path.join(fleet.tmp, 'batch');
    await mkdir(path.join(dir, 'sub', 'deeper'), { recursive: true });
    const pdf = await readFile(await fleet.corpusCopy(INVOICE_PDF));
    await writeFile(path.join(dir, 'AzureInterior.pdf'), pdf);
    await writeFile(path.join(dir, 'sub', 'deeper', 'second.pdf'), pdf);
    await writeFile(path.join(dir, '.DS_Store'), 'junk');
    const up = await json(['upload', dir, '--kb', kbId]);
    expect(up).toMatchObject({ knowledge_base_id: kbId, uploaded: 2, failed: 0, bytes: pdf.length * 2 });
    expect(up.files.map((f: { filename: string }) => f.filename)).toEqual(['AzureInterior.pdf', 'second.pdf']);
    expect(up.files.every((f: { file_id?: string; parse_job_id?: string }) => f.file_id && !f.parse_job_id)).toBe(true);
    invoiceId = up.files[0].file_id;

    // Again: both names are taken; each failure is reported, the JSON still comes out, exit 1.
    const again = await docfleet(['upload', dir, '--kb', kbId, '--json']);
    expect(again.code).toBe(1);
    const report = JSON.parse(again.stdout);
    expect(report).toMatchObject({ uploaded: 0, failed: 2 });
    expect(report.files.map((f: { error: { code: string } }) => f.error.code)).toEqual([
      'duplicate_filename',
      'duplicate_filename',
    ]);
    expect(again.stderr.trim()).toBe('docfleet: 2 of 2 uploads failed');
  });

  it('shows the end of a long path (the file name) in the upload table, not its first folders', async () => {
    // Issue 13.8, through the command: stdout is not a terminal, so the table is cut to 100 columns.
    const top = path.join(fleet.tmp, 'long');
    const deep = path.join(top, 'quarterly-reports-archive-2024', 'finance-department-shared', 'supplier-invoices');
    await mkdir(deep, { recursive: true });
    await writeFile(
      path.join(deep, 'very-long-supplier-name-invoice-0042.pdf'),
      await readFile(await fleet.corpusCopy(INVOICE_PDF)),
    );
    const r = await docfleet(['upload', top, '--kb', kbId]);
    expect(r.code).toBe(0);
    const [head, row] = r.stdout.split('\n');
    expect(head).toMatch(/^FILE ID\s+SIZE\s+STATUS\s+PATH$/);
    expect(row.length).toBeLessThanOrEqual(100);
    expect(row).toMatch(/ uploaded {2}…\S*\/very-long-supplier-name-invoice-0042\.pdf$/);
    expect(row).not.toContain(fleet.tmp);
  });

  it('shows a progress bar across files and bytes when stderr is a terminal', async () => {
    const dir = path.join(fleet.tmp, 'tty');
    await mkdir(dir, { recursive: true });
    const pdf = await readFile(path.join(fleet.tmp, 'batch', 'AzureInterior.pdf'));
    await writeFile(path.join(dir, 'tty-a.pdf'), pdf);
    await writeFile(path.join(dir, 'tty-b.pdf'), pdf);
    const env = offlineEnv({ SERVICE_API_KEY: key, SERVICE_BASE_URL: fleet.url });
    // `script` runs the command on a pseudo-terminal and copies everything it writes to stdout.
    const cmd = `${CLI.join(' ')} upload ${dir} --kb ${kbId} --parse`;
    const { stdout } = await run('script', ['-qefc', cmd, '/dev/null'], { cwd: ROOT, env });
    // The bar redraws at a capped frame rate, so which intermediate frames appear depends on
    // timing: the first frame (nothing sent) and the last one (every byte, the last file) always do.
    expect(stdout).toMatch(/uploading \[.*\] 0% \| 0 B of 79\.9 KiB \| file 0 of 2/);
    expect(stdout).toMatch(/uploading \[.*\] 100% \| 79\.9 KiB of 79\.9 KiB \| file 2 of 2 \| tty-b\.pdf/);
    expect(stdout).toMatch(/2 of 2 files uploaded .*parses queued/);
  });

  it('parses with --watch: progress from the index on stderr, the finished jobs as JSON', async () => {
    const r = await docfleet(['parse', invoiceId, '--watch', '--json']);
    expect(r.code).toBe(0);
    const { jobs } = JSON.parse(r.stdout);
    expect(jobs).toEqual([
      expect.objectContaining({
        file_id: invoiceId,
        filename: 'AzureInterior.pdf',
        status: 'completed',
        percent: 100,
        error: null,
        page_count: 1,
      }),
    ]);

    // Without --json the progress lines go to stderr and a table to stdout; the unchanged file's job is reused.
    const text = await docfleet(['parse', invoiceId, '--watch']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`${invoiceId}\\s+${jobs[0].job_id}\\s+completed`));
    expect(text.stderr).toMatch(/AzureInterior\.pdf {2}completed/);
    expect(text.stderr).not.toContain('polling the index');
  });

  it('uploads with --parse --watch: the new parses followed live on the event stream to their end', async () => {
    const dir = path.join(fleet.tmp, 'watched');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'watched.csv'), 'region,revenue\nnorth,10\nsouth,20\n');
    const r = await docfleet(['upload', dir, '--kb', kbId, '--parse', '--watch']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('following the parses on the event stream');
    expect(r.stderr).toMatch(/watched\.csv {2}completed/);
    expect(r.stdout).toMatch(/\S+ completed\s+.*watched\.csv/);
    expect(r.stdout).not.toContain('parses queued');
  });

  it('searches with a readable table and with --json', async () => {
    let found: any;
    await waitUntil(
      `a hit for "olive oil" in knowledge base ${kbId}`,
      async () => (found = await json(['search', kbId, 'olive oil'])).hits.length > 0,
      { timeoutMs: 30_000, intervalMs: 500, detail: () => `last answer: ${JSON.stringify(found)}` },
    );
    expect(found.hits[0]).toMatchObject({ fileId: expect.any(String), docName: expect.stringMatching(/\.pdf$/) });
    const text = await docfleet(['search', kbId, 'olive', 'oil', '--limit', '3']);
    expect(text.stdout.split('\n')[0]).toMatch(/^#\s+SCORE\s+FILE\s+PAGE\s+SEGMENT\s+TEXT$/);
    expect(text.stdout).toMatch(/^1\s+\d+\.\d{3}\s+\S+\.pdf\s+1\s+/m);
    expect(text.stdout).toMatch(/\d+ hits\n$/);
  });

  it('credits, as text and as JSON', async () => {
    const c = await json(['credits']);
    expect(c.credits).toMatchObject({ balance_credits: expect.any(Number), reserved_credits: expect.any(Number) });
    expect(c.credits.total_used_credits).toBeGreaterThanOrEqual(1);
    expect(c.available_credits).toBe(c.credits.balance_credits - c.credits.reserved_credits);
    expect((await docfleet(['credits'])).stdout).toMatch(/^balance\s+\d+ credits\n/);
  });
});

describe('pnpm docfleet extract and split', () => {
  it('extracts with a JSON Schema (file job) and with a field list (operation)', async () => {
    const jsonSchema = path.join(fleet.tmp, 'schema.json');
    await writeFile(
      jsonSchema,
      JSON.stringify({ type: 'object', properties: { invoice_number: { type: 'string' }, total: { type: 'number' } } }),
    );
    const job = await json(['extract', invoiceId, '--schema', jsonSchema]);
    expect(job).toMatchObject({
      mode: 'job',
      file_id: invoiceId,
      job_id: expect.any(String),
      validation_errors: expect.any(Array),
    });
    expect(Object.keys(job.values)).toEqual(expect.arrayContaining(['invoice_number', 'total']));

    const fields = path.join(fleet.tmp, 'fields.json');
    await writeFile(fields, JSON.stringify({ title: 'Invoice', fields: [{ name: 'Invoice Number', type: 'string' }] }));
    const op = await json(['extract', invoiceId, '--schema', fields]);
    expect(op).toMatchObject({ mode: 'operation', operation_id: expect.any(String) });
    expect(Object.keys(op.values)).toEqual(['invoice_number']);

    const text = await docfleet(['extract', invoiceId, '--schema', jsonSchema]);
    expect(text.code).toBe(0);
    expect(JSON.parse(text.stdout.split('\n\n')[0])).toHaveProperty('invoice_number');
    expect(await docfleet(['extract', invoiceId, '--schema', path.join(fleet.tmp, 'missing.json')])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no such file'),
    });
  });

  it('splits into records saved as PDFs in --out (rules suggested when none are given)', async () => {
    const out = path.join(fleet.tmp, 'split-out');
    const r = await json(['split', invoiceId, '--out', out]);
    expect(r).toMatchObject({
      file_id: invoiceId,
      operation_id: expect.any(String),
      quality: { status: expect.stringMatching(/^(pass|review|fail)$/) },
    });
    expect(r.rules.length).toBeGreaterThan(0);
    expect(r.records.length).toBeGreaterThan(0);
    for (const rec of r.records) {
      expect(path.dirname(rec.path)).toBe(out);
      expect(path.basename(rec.path)).toMatch(/^\d{2}-.+-p\d+-\d+\.pdf$/);
      expect((await readFile(rec.path)).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    }
    const rules = path.join(fleet.tmp, 'rules.json');
    await writeFile(rules, JSON.stringify([{ name: 'invoice', description: 'an invoice' }]));
    const again = await json(['split', invoiceId, '--out', out, '--rules', rules]);
    expect(again.rules).toEqual([{ name: 'invoice', description: 'an invoice' }]);
    // Never overwrites the first run's files.
    expect(new Set([...r.records, ...again.records].map((x: { path: string }) => x.path)).size).toBe(
      r.records.length + again.records.length,
    );
  });
});
