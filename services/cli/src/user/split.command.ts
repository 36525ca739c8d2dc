// `split FILE_ID --out DIR [--rules rules.json]`: without rules it asks the model to suggest them
// first; then runs the split (a fresh idempotency key: a deliberate re-run is new work), waits, and
// saves every record as its own PDF in DIR, numbered in page order, never overwriting a file.
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SplitRule, SplitSession, SuggestRulesOutput } from '@docfleet/sdk';
import type { Values } from './run';
import { usage, type CommandContext } from './context';
import { readJsonFile } from './read-json';
import { table } from './table';
import { settleOperation } from './wait';

function slug(title: string): string {
  return (
    title
      .normalize('NFKC')
      .replace(/[^\p{L}\p{N}._-]+/gu, '-')
      .replace(/^[-._]+|[-._]+$/g, '')
      .slice(0, 80) || 'record'
  );
}

function asRules(v: unknown, file: string): SplitRule[] {
  const list = Array.isArray(v) ? v : (v as { rules?: unknown })?.rules;
  const ok =
    Array.isArray(list) &&
    list.length > 0 &&
    list.every((r) => r && typeof r.name === 'string' && typeof r.description === 'string');
  if (!ok) usage(`--rules ${file}: expected [{ "name": …, "description": … }, …] (or { "rules": [...] })`);
  return list as SplitRule[];
}

async function writeNew(dir: string, base: string, bytes: Buffer): Promise<string> {
  for (let n = 1; ; n++) {
    const file = path.join(dir, n === 1 ? `${base}.pdf` : `${base}-${n}.pdf`);
    try {
      await writeFile(file, bytes, { flag: 'wx' });
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || n > 999) throw err;
    }
  }
}

export async function splitCommand({ client, io }: CommandContext, args: string[], values: Values): Promise<void> {
  if (args.length !== 1) usage('split takes exactly one FILE_ID');
  const outDir = values.out as string | undefined;
  if (!outDir) usage('split needs --out DIR (where the record PDFs are written)');
  const [fileId] = args;

  let rules: SplitRule[];
  if (values.rules) rules = asRules(await readJsonFile(values.rules as string, 'rules'), values.rules as string);
  else {
    io.err('no --rules given: asking the model to suggest rules (1 credit)');
    rules = (
      await settleOperation<SuggestRulesOutput>(
        client,
        io,
        await client.split.suggestRules({ file_id: fileId }),
        'rule suggestion',
      )
    ).output.rules;
  }
  const { operationId, output: session } = await settleOperation<SplitSession>(
    client,
    io,
    await client.split.run({ file_id: fileId, rules, idempotency_key: randomUUID() }),
    'split',
  );

  await mkdir(path.resolve(outDir), { recursive: true });
  const records = [...session.records].sort((a, b) => a.startPage - b.startPage);
  const saved = [];
  for (const [i, r] of records.entries()) {
    const bytes = await client.split.download({
      file_id: fileId,
      startPage: r.startPage,
      endPage: r.endPage,
      title: r.title,
    });
    const base = `${String(i + 1).padStart(2, '0')}-${slug(r.title || r.documentType)}-p${r.startPage}-${r.endPage}`;
    saved.push({ ...r, path: await writeNew(path.resolve(outDir), base, bytes), bytes: bytes.length });
  }

  if (io.json)
    return io.result({
      file_id: fileId,
      operation_id: operationId ?? session.operation_id,
      session_id: session.sessionId,
      rules,
      quality: session.quality,
      records: saved,
    });
  await io.out(
    table(
      ['#', 'TYPE', 'PAGES', 'CONF', 'TITLE', 'SAVED AS'],
      saved.map((r, i) => [
        i + 1,
        r.documentType,
        `${r.startPage}-${r.endPage}`,
        r.confidence?.toFixed(2),
        r.title,
        r.path,
      ]),
    ),
  );
  return io.out(
    `${saved.length} records from ${session.sourcePageCount} pages; quality ${session.quality?.status}${session.quality?.status === 'review' ? ' (a person should look)' : ''}`,
  );
}
