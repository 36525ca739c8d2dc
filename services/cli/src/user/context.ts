// What every user command gets: a client built from SERVICE_API_KEY / SERVICE_BASE_URL, the
// parsed options, and output helpers that keep stdout for results (JSON with --json) and stderr
// for progress and messages.
import { DocfleetClient } from '@docfleet/sdk';
import { USER_USAGE } from './usage';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export class UsageError extends Error {}
/** A command ran but some of its work failed (already reported); exit 1. */
export class PartialFailure extends Error {}

export interface CliEnv {
  apiKey: string;
  baseUrl: string;
}

export function readEnv(env: NodeJS.ProcessEnv = process.env): CliEnv {
  const apiKey = env.SERVICE_API_KEY?.trim();
  if (!apiKey)
    throw new UsageError(
      'SERVICE_API_KEY is not set: export an organisation API key (pnpm docfleet admin create-key --org ID)',
    );
  const baseUrl = (env.SERVICE_BASE_URL?.trim() || DEFAULT_BASE_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/i.test(baseUrl) || !URL.canParse(baseUrl))
    throw new UsageError(`SERVICE_BASE_URL must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  return { apiKey, baseUrl };
}

export interface Io {
  json: boolean;
  /** stderr is a terminal: progress bars instead of progress lines. */
  tty: boolean;
  out(text: string): Promise<void>;
  /** The machine-readable result of a --json run (exactly one per command). */
  result(value: unknown): Promise<void>;
  err(text: string): void;
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => stream.write(text, (e) => (e ? reject(e) : resolve())));
}

export function createIo(json: boolean): Io {
  return {
    json,
    tty: Boolean(process.stderr.isTTY),
    out: (text) => write(process.stdout, text.endsWith('\n') ? text : `${text}\n`),
    result: (value) => write(process.stdout, `${JSON.stringify(value, null, 2)}\n`),
    err: (text) => void process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  };
}

export interface CommandContext {
  client: DocfleetClient;
  io: Io;
  env: CliEnv;
}

export function createClient(env: CliEnv): DocfleetClient {
  return new DocfleetClient({ baseUrl: env.baseUrl, apiKey: env.apiKey, userAgent: 'docfleet-cli/0.1.0' });
}

export function usage(message: string): never {
  throw new UsageError(`${message}\n${USER_USAGE}`);
}

export function positiveInt(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) usage(`--${name} must be a positive integer`);
  return n;
}
