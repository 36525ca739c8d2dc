// The knowledge-base listing, GET /v1/knowledge-bases/{kbId}/index ("index" is its wire name only),
// over a knowledge base of 2,000 files, through the HTTP API, beside the same SQL run directly on
// PostgreSQL (node-postgres) and the listing's own code in process, in the same run. The gateway's
// own benchmark: it mounts the gateway in this process (test/harness.ts), as the gateway's tests do;
// `pnpm bench` (bench/run.ts) runs it with the workspace's benchmarks.
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { Prisma } from '@docfleet/db';
import {
  closedLoop,
  ensureTemplate,
  httpLoad,
  median,
  round,
  roundRobin,
  withSlowdown,
  type LoadResult,
  type Row,
} from '@docfleet/bench';
import { buildKbListing } from '../src/domain/knowledge-bases/kb-listing';
import { startGateway, type Gateway } from '../test/harness';

export const name = 'index-endpoint';

const FILES = 2000;
const FOLDERS = 5;
/** Concurrent callers, for the HTTP load and the baselines alike; equal to the harness's Prisma pool (4). */
const CONCURRENCY = 4;
/** Measured seconds per case, split over ROUNDS. */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 12);
const WARMUP_SECONDS = 2;
/** Round-robin stretches per case (see roundRobin in lib.ts). */
const ROUNDS = 3;

type Principal = Parameters<typeof buildKbListing>[1];

/** Median wall time of `reps` calls made one after the other (after two unmeasured ones). */
async function medianMs(fn: () => Promise<unknown>, reps = 15): Promise<number> {
  await fn();
  await fn();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return round(median(times));
}

/**
 * Inserts FILES files (one version each, current_version_id set) spread over the root and FOLDERS
 * folders; every other file has a completed parse job and a parse artifact manifest. Ids are
 * derived from the knowledge base id and the file number, so the statements need no round trips.
 */
export async function seed(db: Gateway['db'], orgId: string, kbId: string) {
  await db.$transaction(async (tx) => {
    await tx.$executeRaw`
      INSERT INTO folders (id, org_id, knowledge_base_id, name)
      SELECT md5(${kbId}::text || ':folder:' || k)::uuid, ${orgId}::uuid, ${kbId}::uuid, 'Folder ' || k
      FROM generate_series(1, ${FOLDERS}::int) k`;
    await tx.$executeRaw`
      INSERT INTO files (id, org_id, knowledge_base_id, folder_id, filename, content_type, metadata, created_at, updated_at)
      SELECT md5(${kbId}::text || ':file:' || i)::uuid, ${orgId}::uuid, ${kbId}::uuid,
        CASE WHEN i % (${FOLDERS}::int + 1) = 0 THEN NULL ELSE md5(${kbId}::text || ':folder:' || (i % (${FOLDERS}::int + 1)))::uuid END,
        format('contract-%s.pdf', lpad(i::text, 5, '0')), 'application/pdf',
        jsonb_build_object('source', 'bench', 'batch', i / 100, 'tags', jsonb_build_array('contract', 'signed'), 'customer', 'Customer ' || (i % 37)),
        now() - make_interval(mins => ${FILES}::int - i), now() - make_interval(mins => ${FILES}::int - i)
      FROM generate_series(1, ${FILES}::int) i`;
    await tx.$executeRaw`
      INSERT INTO file_versions (id, file_id, version_number, storage_path, sha256, byte_size, content_type, original_filename, page_count, created_at)
      SELECT md5(${kbId}::text || ':version:' || i)::uuid, md5(${kbId}::text || ':file:' || i)::uuid, 1,
        format('kb/%s/files/%s/v1/original', ${kbId}::text, md5(${kbId}::text || ':file:' || i)::uuid),
        encode(sha256(convert_to(${kbId}::text || i, 'UTF8')), 'hex'), 40000 + i * 997, 'application/pdf',
        format('contract-%s.pdf', lpad(i::text, 5, '0')), CASE WHEN i % 2 = 0 THEN 1 + i % 40 END,
        now() - make_interval(mins => ${FILES}::int - i)
      FROM generate_series(1, ${FILES}::int) i`;
    await tx.$executeRaw`
      UPDATE files f SET current_version_id = v.id FROM file_versions v
      WHERE v.file_id = f.id AND f.knowledge_base_id = ${kbId}::uuid`;
    await tx.$executeRaw`
      INSERT INTO jobs (id, org_id, knowledge_base_id, file_id, file_version_id, kind, status, stage, percent, total_pages, completed_pages,
        result, options, idempotency_key, started_at, completed_at, created_at, updated_at)
      SELECT md5(${kbId}::text || ':job:' || i)::uuid, ${orgId}::uuid, ${kbId}::uuid, md5(${kbId}::text || ':file:' || i)::uuid, md5(${kbId}::text || ':version:' || i)::uuid,
        'parse', 'completed', 'done', 100, 1 + i % 40, 1 + i % 40,
        jsonb_build_object('pages', 1 + i % 40, 'characters', 1800 * (1 + i % 40), 'ocr_pages', i % 3),
        jsonb_build_object('ocr', 'auto'), 'bench-parse:' || ${kbId}::text || ':' || i,
        now() - make_interval(mins => ${FILES}::int - i) + interval '5 seconds',
        now() - make_interval(mins => ${FILES}::int - i) + interval '40 seconds',
        now() - make_interval(mins => ${FILES}::int - i) + interval '1 second',
        now() - make_interval(mins => ${FILES}::int - i) + interval '40 seconds'
      FROM generate_series(2, ${FILES}::int, 2) i`;
    await tx.$executeRaw`
      INSERT INTO artifact_manifests (id, org_id, file_id, file_version_id, job_id, artifact_type, manifest, links, storage_prefix, created_at)
      SELECT md5(${kbId}::text || ':manifest:' || i)::uuid, ${orgId}::uuid, md5(${kbId}::text || ':file:' || i)::uuid, md5(${kbId}::text || ':version:' || i)::uuid,
        md5(${kbId}::text || ':job:' || i)::uuid, 'parse',
        jsonb_build_object('pages', 1 + i % 40, 'files', jsonb_build_array('result.md', 'grounding.json', 'pages/', 'imgs/')),
        jsonb_build_object('result_md', 'result.md', 'grounding_json', 'grounding.json', 'pages', 'pages/', 'imgs', 'imgs/'),
        format('kb/%s/files/%s/artifacts/%s', ${kbId}::text, md5(${kbId}::text || ':file:' || i)::uuid, md5(${kbId}::text || ':manifest:' || i)::uuid),
        now() - make_interval(mins => ${FILES}::int - i) + interval '40 seconds'
      FROM generate_series(2, ${FILES}::int, 2) i`;
  });
  // A live database has planner statistics; a freshly filled one only gets them from autovacuum.
  await db.$executeRawUnsafe('ANALYZE folders, files, file_versions, jobs, artifact_manifests');
}

const loadRow = (label: string, r: LoadResult, note: string, extra: Record<string, unknown> = {}): Row => ({
  case: label,
  throughput: round(r.rps, 1),
  unit: 'req/s',
  p50_ms: round(r.p50_ms),
  p99_ms: round(r.p99_ms),
  samples: r.requests,
  note: `${r.errors ? `${r.errors} ERRORS; ` : ''}${CONCURRENCY} concurrent; event loop ${Math.round(r.loop_busy * 100)}% busy; ${note}`,
  extra: { ...extra, load: r },
});

export async function run(): Promise<Row[]> {
  await ensureTemplate();
  const gw = await startGateway();
  const pool = new pg.Pool({ connectionString: gw.deps.env.DATABASE_URL, max: CONCURRENCY });
  try {
    const { orgId, key, keyId } = await gw.createOrg({ credits: 10 });
    const kbId = (await gw.createKnowledgeBase(key, 'Bench contracts')).id;
    const t0 = Date.now();
    await seed(gw.db, orgId, kbId);
    const seedMs = Date.now() - t0;

    const path = `/v1/knowledge-bases/${kbId}/index`;
    const first = await gw.req('GET', path, { key });
    if (first.status !== 200 || first.body.files.length !== FILES) {
      throw new Error(
        `the listing answered ${first.status} with ${first.body?.files?.length} files, expected ${FILES}`,
      );
    }
    const withJob = first.body.files.filter((f: { latest_parse_job: unknown }) => f.latest_parse_job).length;
    const withArtifacts = first.body.files.filter((f: { parse_artifacts: unknown }) => f.parse_artifacts).length;

    // The SQL the endpoint runs, captured from buildKbListing itself so the baseline cannot drift from it.
    const principal: Principal = { kind: 'api_key', orgId, role: 'admin', apiKeyId: keyId };
    let captured: Prisma.Sql | undefined;
    const spy = new Proxy(gw.db, {
      get(target, prop, receiver) {
        if (prop === '$queryRaw') {
          return (strings: TemplateStringsArray, ...values: unknown[]) => {
            captured = Prisma.sql(strings, ...values);
            return target.$queryRaw(strings, ...values);
          };
        }
        return Reflect.get(target, prop, receiver);
      },
    });
    await buildKbListing({ db: spy }, principal, kbId);
    if (!captured) throw new Error('buildKbListing ran no $queryRaw: cannot capture its SQL');
    const { text: sql, values } = captured;

    // Profile: response size, serialisation cost, and the plan of the listing query.
    const built = await buildKbListing({ db: gw.db }, principal, kbId);
    if (built.notModified) throw new Error('unexpected 304 without If-None-Match');
    const body = built.body;
    const etag = `"${built.version}"`;
    const s0 = process.hrtime.bigint();
    const reps = 20;
    let json = '';
    for (let i = 0; i < reps; i++) json = JSON.stringify(body);
    const stringifyMs = Number(process.hrtime.bigint() - s0) / 1e6 / reps;
    const planRows = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, values);
    const plan = planRows.rows.map((r: Record<string, string>) => r['QUERY PLAN']);
    const planJson = (await pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, values)).rows[0]['QUERY PLAN'][0] as {
      'Execution Time': number;
      'Planning Time': number;
    };
    // One caller at a time (no queueing): where a single request's time goes.
    const rawText = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;
    const sequential = {
      sql_pg_ms: await medianMs(() => pool.query(sql, values)),
      sql_pg_no_type_parsing_ms: await medianMs(() => pool.query({ text: sql, values, types: rawText })),
      sql_prisma_ms: await medianMs(() => gw.db.$queryRawUnsafe(sql, ...values)),
      build_listing_ms: await medianMs(() => buildKbListing({ db: gw.db }, principal, kbId)),
      http_get_ms: await medianMs(async () => {
        const r = await fetch(gw.url + path, { headers: { 'x-api-key': key } });
        await r.arrayBuffer();
      }),
    };
    const profile = {
      sequential_median: sequential,
      files: FILES,
      files_with_parse_job: withJob,
      files_with_parse_artifacts: withArtifacts,
      seed_ms: seedMs,
      response_bytes: Buffer.byteLength(json),
      response_gzip_bytes: gzipSync(json).length,
      bytes_per_file: Math.round(Buffer.byteLength(json) / FILES),
      json_stringify_ms: round(stringifyMs),
      sql_execution_ms: round(planJson['Execution Time']),
      sql_planning_ms: round(planJson['Planning Time']),
      plan,
    };

    process.stdout.write(
      `profile: ${FILES} files, ${Math.round(profile.response_bytes / 1024)} KiB JSON (${Math.round(profile.response_gzip_bytes / 1024)} KiB gzipped), ` +
        `JSON.stringify ${profile.json_stringify_ms} ms; PostgreSQL executes the query in ${profile.sql_execution_ms} ms (EXPLAIN ANALYZE); ` +
        `one request at a time: ${Object.entries(sequential)
          .map(([k, v]) => `${k.replace(/_ms$/, '')} ${v} ms`)
          .join(', ')}\n`,
    );

    const loop = (fn: () => Promise<unknown>) => (seconds: number, warmupSeconds?: number) =>
      closedLoop(fn, { concurrency: CONCURRENCY, seconds, warmupSeconds });
    const [direct, viaPrisma, inProcess, http, conditional] = await roundRobin<LoadResult>(
      [
        { label: 'sql', measure: loop(() => pool.query(sql, values)) },
        { label: 'prisma', measure: loop(() => gw.db.$queryRawUnsafe(sql, ...values)) },
        { label: 'buildKbListing', measure: loop(() => buildKbListing({ db: gw.db }, principal, kbId)) },
        {
          label: 'http',
          measure: (seconds, warmupSeconds) =>
            httpLoad(gw.url + path, {
              headers: { 'x-api-key': key },
              connections: CONCURRENCY,
              seconds,
              warmupSeconds,
            }),
        },
        {
          label: 'http-304',
          measure: (seconds, warmupSeconds) =>
            httpLoad(gw.url + path, {
              headers: { 'x-api-key': key, 'if-none-match': etag },
              connections: CONCURRENCY,
              seconds,
              warmupSeconds,
              notModifiedIsOk: true,
            }),
        },
      ],
      { rounds: ROUNDS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS },
    );
    const kib = Math.round(profile.response_bytes / 1024);

    return withSlowdown([
      { ...loadRow('listing SQL, node-postgres (baseline)', direct, `pool of ${CONCURRENCY}`), baseline: true },
      loadRow('same SQL, Prisma $queryRawUnsafe', viaPrisma, "the gateway's pg adapter"),
      loadRow('buildKbListing() in process, no HTTP', inProcess, 'loadKb + query + mapping'),
      loadRow(`GET /v1/knowledge-bases/{id}/index`, http, `autocannon; ${kib} KiB JSON per response`, { profile }),
      loadRow(
        'same, polling with If-None-Match (304, nothing changed)',
        conditional,
        'autocannon; index_version check only',
      ),
    ]);
  } finally {
    await pool.end().catch(() => undefined);
    await gw.close();
  }
}
