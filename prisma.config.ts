// Prisma CLI configuration. Only `prisma generate` is used (see prisma/README.md): migrations are
// applied by libs/db's runner, because every `prisma migrate` command of 7.x needs a schema
// engine binary downloaded from the internet.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/docfleet' },
});
