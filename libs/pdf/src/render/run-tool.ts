// The one place the library starts external tools (pdftoppm, tesseract): spawn with an argument
// vector, never a shell, so no argument is ever parsed as shell syntax. The runner is replaceable
// (setToolRunner) so a test or a profiler can see exactly which processes a parse starts.
import { spawn } from 'node:child_process';

export interface ToolOptions {
  /**
   * Kill the process (SIGKILL) after this long; the promise rejects with `timedOut`. With `input`
   * the clock starts when the input is written, so a process started early is not penalised for
   * waiting.
   */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Extra environment variables on top of process.env. */
  env?: Record<string, string>;
  /** Cap on stdout bytes (default 64 MiB). */
  maxBuffer?: number;
  /**
   * Written to stdin (then closed) once it resolves; the process is started at once and can do its
   * own start-up meanwhile. A rejected input kills the process.
   */
  input?: Promise<string | Buffer>;
}

export interface ToolResult {
  stdout: string;
  stderr: string;
}

export class ToolError extends Error {
  constructor(
    message: string,
    readonly details: { timedOut: boolean; aborted: boolean; stderr: string; cause?: unknown },
  ) {
    super(message, { cause: details.cause });
    this.name = 'ToolError';
  }
}

export type ToolRunner = (cmd: string, args: string[], opts: ToolOptions) => Promise<ToolResult>;

const STDERR_CAP = 64 << 10;

export const spawnRunner: ToolRunner = (cmd, args, opts) =>
  new Promise((resolve, reject) => {
    let timedOut = false,
      aborted = false,
      overflow = false,
      settled = false;
    let timer: NodeJS.Timeout | undefined;
    const out: Buffer[] = [];
    let outLen = 0,
      stderr = '';
    const child = spawn(cmd, args, {
      env: opts.env ? { ...process.env, ...opts.env } : process.env,
      stdio: [opts.input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const onAbort = () => {
      aborted = true;
      kill();
    };
    const startClock = () => {
      if (opts.timeoutMs)
        timer = setTimeout(() => {
          timedOut = true;
          kill();
        }, opts.timeoutMs);
    };
    const finish = (err?: unknown, code?: number | null, signal?: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (!err && code === 0 && !timedOut && !aborted && !overflow)
        return resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr });
      const why = overflow ? 'output too large' : stderr.trim() || (err as Error)?.message || `exit ${code ?? signal}`;
      reject(new ToolError(`${cmd} failed: ${why}`, { timedOut, aborted, stderr, cause: err }));
    };
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (b: Buffer) => {
      outLen += b.length;
      if (outLen > (opts.maxBuffer ?? 64 << 20)) {
        overflow = true;
        kill();
      } else out.push(b);
    });
    child.stderr!.on('data', (b: Buffer) => {
      if (stderr.length < STDERR_CAP) stderr += b.toString('utf8');
    });
    child.on('error', (err) => finish(err));
    child.on('close', (code, signal) => finish(undefined, code, signal));
    if (opts.input) {
      child.stdin!.on('error', () => undefined); // EPIPE when the process died first; its exit reports why
      opts.input.then(
        (data) => {
          if (settled || child.exitCode !== null || child.signalCode !== null) return;
          startClock();
          child.stdin!.end(data);
        },
        () => onAbort(),
      );
    } else {
      startClock();
    }
  });

let runner: ToolRunner = spawnRunner;

/** Replaces the process runner (tests, instrumentation); returns a function that restores the previous one. */
export function setToolRunner(next: ToolRunner): () => void {
  const prev = runner;
  runner = next;
  return () => {
    runner = prev;
  };
}

export function runTool(cmd: string, args: string[], opts: ToolOptions = {}): Promise<ToolResult> {
  return runner(cmd, args, opts);
}
