// jest globalSetup (jest.config.js): makes sure the Prisma client exists, then rebuilds the test
// template database from prisma/migrations so every run tests the migrations as they are now.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { rebuildTemplate } from './db';

const ROOT = path.resolve(__dirname, '../../..');

export default async function globalSetup(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'libs/db/src/generated/client.ts'))) {
    execFileSync('bash', ['scripts/prisma-generate.sh'], { cwd: ROOT, stdio: 'inherit' });
  }
  try {
    await rebuildTemplate();
  } catch (err) {
    throw new Error(`jest global setup: cannot build the test template database: ${(err as Error).message}`);
  }
}
