// `pnpm db:migrate`: applies pending migrations to DATABASE_URL, creating the database if needed.
// Prints one line per applied migration and a summary; any failure is one line on stderr, exit 1.
import { describeUrl, migrate, verifyMigrations } from './migrate';

const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/docfleet';

async function main(): Promise<void> {
  const url = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const { applied, skipped } = await migrate(url, { log: (line) => console.log(`db:migrate: ${line}`) });
  // Re-read what the database recorded: success means every folder is there, finished.
  const { recorded, folders } = await verifyMigrations(url);
  console.log(
    `db:migrate: ${describeUrl(url)} is up to date: ${applied.length} applied now, ${skipped.length} already applied, ${recorded}/${folders} recorded`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    console.error(`db:migrate failed: ${message.replace(/\s*\n\s*/g, ' ')}`);
    process.exit(1);
  },
);
