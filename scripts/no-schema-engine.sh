#!/bin/sh
# Stand-in for Prisma's schema engine, which cannot be downloaded on machines without internet.
# `prisma generate` never calls it; anything that does (prisma migrate / db push / db pull) must fail
# loudly instead of reporting success. Use `pnpm db:migrate` to apply migrations.
echo "docfleet: the Prisma schema engine is not available offline; use 'pnpm db:migrate' (see prisma/README.md)" >&2
exit 1
