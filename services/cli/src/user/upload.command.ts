// `upload PATH… --kb ID [--folder ID] [--parse [--watch]]`: uploads files one after another,
// streaming each from disk; on a terminal a progress bar counts bytes and files across the whole
// batch. A file that fails (duplicate name, unsupported type) is reported and the rest continue;
// the exit code is 1 when any failed. With --parse --watch the parses are then followed live on the
// event stream (as `parse --watch` does) and the exit code is 1 when any did not complete.
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { DocfleetApiError } from '@docfleet/sdk';
import cliProgress from 'cli-progress';
import type { Values } from './run';
import { PartialFailure, usage, type CommandContext } from './context';
import { bytes, table } from './table';
import { collectFiles, type LocalFile } from './walk';
import { watchParses, type ParseState } from './parse.command';

export interface UploadOutcome {
  path: string;
  filename: string;
  bytes: number;
  file_id?: string;
  parse_job_id?: string;
  error?: { code: string; message: string; status?: number };
}

/** Streams the file and reports every chunk handed to the request. */
async function* counted(file: string, onBytes: (n: number) => void): AsyncIterable<Uint8Array> {
  for await (const chunk of createReadStream(file)) {
    onBytes((chunk as Buffer).length);
    yield chunk as Buffer;
  }
}

export async function uploadCommand({ client, io }: CommandContext, args: string[], values: Values): Promise<void> {
  const kbId = values.kb as string | undefined;
  if (!kbId) usage('upload needs --kb KB_ID (docfleet kb list shows the ids)');
  if (!args.length) usage('upload needs at least one file or folder');
  const files: LocalFile[] = await collectFiles(args);
  if (!files.length) usage('no files found under the given paths');
  const totalBytes = files.reduce((a, f) => a + f.size, 0);

  const bar = io.tty
    ? new cliProgress.SingleBar(
        {
          format: 'uploading [{bar}] {percentage}% | {sent} of {total_h} | file {file} of {files} | {name}',
          hideCursor: true,
          stream: process.stderr,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  let sent = 0;
  bar?.start(totalBytes, 0, { sent: bytes(0), total_h: bytes(totalBytes), file: 0, files: files.length, name: '' });

  const outcomes: UploadOutcome[] = [];
  for (const [i, f] of files.entries()) {
    const filename = path.basename(f.path);
    bar?.update(sent, { file: i + 1, name: filename });
    const before = sent;
    const o: UploadOutcome = { path: f.path, filename, bytes: f.size };
    try {
      const r = await client.files.upload(
        counted(f.path, (n) => {
          sent += n;
          bar?.update(sent, { sent: bytes(sent), file: i + 1, name: filename });
        }),
        {
          knowledgeBaseId: kbId,
          folderId: values.folder as string | undefined,
          filename,
          autoParse: Boolean(values.parse),
        },
      );
      o.file_id = r.file.id;
      if (r.parse_job) o.parse_job_id = r.parse_job.job_id;
    } catch (err) {
      if (!(err instanceof DocfleetApiError) || err.status === 401 || err.status === 404) {
        bar?.stop();
        throw err; // a wrong key or knowledge base fails every file alike
      }
      o.error = { code: err.code, message: err.error, status: err.status };
    }
    sent = before + f.size;
    bar?.update(sent, { sent: bytes(sent) });
    outcomes.push(o);
    if (!io.tty && !io.json)
      io.err(
        o.error ? `failed   ${f.path}: ${o.error.code}: ${o.error.message}` : `uploaded ${f.path} -> ${o.file_id}`,
      );
  }
  bar?.stop();

  let parses: ParseState[] | undefined;
  if (values.parse && values.watch) {
    parses = outcomes
      .filter((o) => o.parse_job_id)
      .map((o) => ({
        file_id: o.file_id!,
        job_id: o.parse_job_id!,
        status: 'queued',
        stage: null,
        percent: 0,
        error: null,
      }));
    if (parses.length) await watchParses(client, io, parses);
  }
  const parseOf = (o: UploadOutcome) => parses?.find((p) => p.file_id === o.file_id);

  const failed = outcomes.filter((o) => o.error);
  if (io.json)
    await io.result({
      knowledge_base_id: kbId,
      uploaded: outcomes.length - failed.length,
      failed: failed.length,
      bytes: totalBytes,
      files: outcomes,
      ...(parses ? { parses } : {}),
    });
  else {
    await io.out(
      table(
        ['FILE ID', 'SIZE', values.parse ? 'PARSE JOB' : 'STATUS', 'PATH'],
        outcomes.map((o) => [
          o.file_id ?? '-',
          bytes(o.bytes),
          o.error
            ? `failed: ${o.error.code}`
            : parseOf(o)
              ? `${o.parse_job_id} ${parseOf(o)!.status}`
              : (o.parse_job_id ?? 'uploaded'),
          o.path,
        ]),
        undefined,
        { keepEnd: true }, // a long path shows its file name, not its first folders
      ),
    );
    await io.out(
      `${outcomes.length - failed.length} of ${outcomes.length} files uploaded (${bytes(totalBytes)})${values.parse && !parses ? '; parses queued (docfleet parse FILE_ID… --watch to follow)' : ''}`,
    );
  }
  if (failed.length) throw new PartialFailure(`${failed.length} of ${outcomes.length} uploads failed`);
  const unparsed = parses?.filter((p) => p.status !== 'completed') ?? [];
  if (unparsed.length)
    throw new PartialFailure(
      `${unparsed.length} of ${parses!.length} parses did not complete: ${unparsed.map((p) => `${p.filename ?? p.file_id}: ${p.error ?? p.status}`).join('; ')}`,
    );
}
