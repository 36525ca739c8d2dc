// Dispatches a user command: parses its options (strictly: an unknown flag is a usage error),
// builds the client, runs it, and maps failures to one line on stderr and an exit code
// (2 usage, 1 API or partial failure). The API key is scrubbed from anything printed.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DocfleetApiError, DocfleetRequestError, DocfleetTimeoutError } from '@docfleet/sdk';
import { creditsCommand } from './credits.command';
import { extractCommand } from './extract.command';
import { kbCommand } from './kb.command';
import { parseCommand } from './parse.command';
import { searchCommand } from './search.command';
import { splitCommand } from './split.command';
import { uploadCommand } from './upload.command';
import { PartialFailure, UsageError, createClient, createIo, readEnv, usage, type CommandContext } from './context';

type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;
type Runner = (ctx: CommandContext, positionals: string[], values: Values) => Promise<void>;

const json = { json: { type: 'boolean' } } as const;
const COMMANDS: Record<string, { options: Options; run: Runner }> = {
  kb: { options: { ...json, description: { type: 'string' } }, run: kbCommand },
  upload: {
    options: {
      ...json,
      kb: { type: 'string' },
      folder: { type: 'string' },
      parse: { type: 'boolean' },
      watch: { type: 'boolean' },
    },
    run: uploadCommand,
  },
  parse: { options: { ...json, watch: { type: 'boolean' } }, run: parseCommand },
  search: { options: { ...json, limit: { type: 'string' }, 'table-only': { type: 'boolean' } }, run: searchCommand },
  extract: { options: { ...json, schema: { type: 'string' } }, run: extractCommand },
  split: { options: { ...json, out: { type: 'string' }, rules: { type: 'string' } }, run: splitCommand },
  credits: { options: json, run: creditsCommand },
};

function scrub(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}

export async function runUserCommand(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const secret = process.env.SERVICE_API_KEY?.trim();
  try {
    const cmd = COMMANDS[name];
    if (!cmd) usage(`unknown command ${JSON.stringify(name)}`);
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: cmd.options, allowPositionals: true, strict: true });
    } catch (err) {
      usage((err as Error).message);
    }
    const env = readEnv();
    const ctx: CommandContext = { client: createClient(env), io: createIo(Boolean(parsed.values.json)), env };
    await cmd.run(ctx, parsed.positionals, parsed.values as Values);
    return 0;
  } catch (err) {
    if (err instanceof PartialFailure) {
      process.stderr.write(`docfleet: ${scrub(err.message, secret)}\n`);
      return 1;
    }
    const known =
      err instanceof UsageError ||
      err instanceof DocfleetApiError ||
      err instanceof DocfleetRequestError ||
      err instanceof DocfleetTimeoutError;
    const msg = known ? (err as Error).message : `unexpected error: ${(err as Error)?.message ?? String(err)}`;
    process.stderr.write(`docfleet: ${scrub(msg, secret)}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
}
