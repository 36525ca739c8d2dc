// Lints the gateway's OpenAPI document against the OpenAPI 3.1 JSON Schema.
// Usage: pnpm lint:openapi [file.json]   (without a file, the gateway prints the document from its
// routes: services/gateway/src/print-openapi.ts, run as its own process)
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');

async function main() {
  const file = process.argv[2];
  const text = file
    ? await readFile(file, 'utf8')
    : execFileSync(process.execPath, ['--import', 'tsx', 'services/gateway/src/print-openapi.ts'], {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
  const doc: unknown = JSON.parse(text);
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
