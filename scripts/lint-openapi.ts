// Lints the gateway's OpenAPI document against the OpenAPI 3.1 JSON Schema.
// Usage: pnpm lint:openapi [file.json]   (without a file, the document is generated from the routes)
import { readFile } from 'node:fs/promises';
import { buildApp } from '../services/gateway/src/app';
import type { Deps } from '../services/gateway/src/deps';
import { gatewayEnv, defineEnv } from '../libs/config/src';

async function main() {
  const file = process.argv[2];
  let doc: unknown;
  if (file) doc = JSON.parse(await readFile(file, 'utf8'));
  else {
    // Generating the document touches no database or Redis: routes only hold their deps.
    const env = defineEnv(gatewayEnv, { ...process.env, LOG_LEVEL: 'silent' }, { exit: false });
    doc = buildApp({
      env,
      db: {},
      storage: {},
      queues: {},
      redis: {},
      logger: { child: () => ({}), info: () => undefined, warn: () => undefined },
    } as unknown as Deps).openapi();
  }
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const res = await new Validator().validate(doc as never);
  if (!res.valid) {
    process.stderr.write(`openapi: INVALID\n${JSON.stringify(res.errors, null, 2)}\n`);
    process.exit(1);
  }
  const paths = Object.keys((doc as { paths: object }).paths);
  process.stdout.write(`openapi: valid OpenAPI ${(doc as { openapi: string }).openapi}, ${paths.length} paths\n`);
}
main().catch((e) => {
  process.stderr.write(`openapi: ${(e as Error).message}\n`);
  process.exit(1);
});
