// `docfleet admin …`: operator commands that talk to the database directly (no API key needed).
// Loaded only for the admin group, so user commands never start Prisma.
import { baseEnv, defineEnv } from '@docfleet/config';
import { createPrismaClient } from '@docfleet/db';
import { isApiError } from '@docfleet/errors';
import { runAdmin, UsageError } from './admin';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function adminMain(rest: string[]): Promise<number> {
  const env = defineEnv(baseEnv);
  const db = createPrismaClient(env.DATABASE_URL, { poolMax: 2 });
  try {
    const out = await runAdmin(db, rest, readStdin);
    process.stdout.write((rest.includes('--json') ? JSON.stringify(out.json) : out.text) + '\n');
    return 0;
  } catch (err) {
    if (err instanceof UsageError || isApiError(err)) process.stderr.write(`docfleet: ${(err as Error).message}\n`);
    else process.stderr.write(`docfleet: ${(err as Error).message.split('\n').filter(Boolean).slice(-1)[0]}\n`);
    return err instanceof UsageError ? 2 : 1;
  } finally {
    await db.$disconnect();
  }
}
