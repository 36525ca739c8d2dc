// The drift test: prisma/schema.prisma (read through Prisma's own DMMF, offline WASM) against the
// catalog of a database migrated by our runner. Any disagreement fails with one line per problem.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { getDMMF } from '@prisma/get-dmmf';
import { Client } from 'pg';
import { createTestDb, type TestDb } from '../../testing/src';

const SCHEMA_PATH = path.resolve(__dirname, '../../../prisma/schema.prisma');
const PG_MAX_IDENT = 63;

type DmmfResult = ReturnType<typeof getDMMF>;
type Dmmf = Extract<DmmfResult, { datamodel: unknown }>;
type DmmfModel = Dmmf['datamodel']['models'][number];
type DmmfField = DmmfModel['fields'][number];

interface Column {
  name: string;
  type: string;
  nullable: boolean | null;
}
interface Table {
  model: string;
  name: string;
  columns: Column[];
  primaryKey: { name: string; columns: string[] };
}
interface IndexSpec {
  table: string;
  name: string;
  columns: string[];
  unique: boolean;
  what: string;
}
interface FkSpec {
  table: string;
  name: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: string;
  what: string;
}
interface Expected {
  tables: Table[];
  indexes: IndexSpec[];
  fks: FkSpec[];
}

// Prisma's default constraint names (psl ConstraintNames), PostgreSQL's 63-byte limit included.
const pkName = (table: string) =>
  (table.length >= PG_MAX_IDENT - 5 ? table.slice(0, PG_MAX_IDENT - 5) : table) + '_pkey';
function indexName(table: string, columns: string[], suffix: '_key' | '_idx'): string {
  const base = `${table}_${columns.join('_')}`;
  return (base.length >= PG_MAX_IDENT - suffix.length ? base.slice(0, PG_MAX_IDENT - suffix.length) : base) + suffix;
}
function fkName(table: string, columns: string[]): string {
  const base = `${table}_${columns.join('_')}`;
  return (base.length >= PG_MAX_IDENT - 5 ? base.slice(0, PG_MAX_IDENT - 5) : base) + '_fkey';
}

/** The column type family Prisma renders for a scalar field. */
function fieldType(f: DmmfField): string {
  const [native, args] = (f.nativeType ?? [null, []]) as [string | null, string[]];
  let t: string;
  switch (f.type) {
    case 'String':
      t = native === 'Uuid' ? 'uuid' : native === 'VarChar' ? 'varchar' : native === 'Char' ? 'bpchar' : 'text';
      break;
    case 'Int':
      t = native === 'SmallInt' ? 'smallint' : 'int';
      break;
    case 'BigInt':
      t = 'bigint';
      break;
    case 'Boolean':
      t = 'bool';
      break;
    case 'Json':
      t = native === 'Json' ? 'json' : 'jsonb';
      break;
    case 'Float':
      t = 'float8';
      break;
    case 'Decimal':
      t = 'numeric';
      break;
    case 'Bytes':
      t = 'bytea';
      break;
    case 'DateTime':
      if (native === 'Date') t = 'date';
      else if (native === 'Timestamptz') t = `timestamptz(${args[0] ?? 6})`;
      else if (native === 'Timestamp') t = `timestamp(${args[0] ?? 6})`;
      else t = 'timestamp(3)';
      break;
    default:
      throw new Error(`drift test: no mapping for ${f.name}: ${f.type}`);
  }
  return f.isList ? `${t}[]` : t;
}

/** The same families from information_schema's udt_name. */
function dbType(udt: string, precision: number | null): string {
  const isArray = udt.startsWith('_');
  const base = isArray ? udt.slice(1) : udt;
  const names: Record<string, string> = { int4: 'int', int2: 'smallint', int8: 'bigint' };
  let t = names[base] ?? base;
  // information_schema reports no precision for array elements; Prisma has no timestamp lists here.
  if ((base === 'timestamptz' || base === 'timestamp') && !isArray) t = `${base}(${precision})`;
  return isArray ? `${t}[]` : t;
}

/** Fields the DMMF leaves out: Unsupported("...") columns, read from the schema text. */
function unsupportedColumns(schemaText: string): Map<string, Column[]> {
  const out = new Map<string, Column[]>();
  for (const m of schemaText.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const cols: Column[] = [];
    for (const line of m[2].split('\n')) {
      const f = /^\s*(\w+)\s+Unsupported\("([^"]+)"\)(\?)?(.*)$/.exec(line);
      if (!f) continue;
      const mapped = /@map\("([^"]+)"\)/.exec(f[4]);
      cols.push({ name: mapped?.[1] ?? f[1], type: f[2], nullable: f[3] === '?' });
    }
    out.set(m[1], cols);
  }
  return out;
}

async function expectedFromSchema(): Promise<Expected> {
  const text = readFileSync(SCHEMA_PATH, 'utf8');
  const result: DmmfResult = getDMMF({ datamodel: text });
  if (!('datamodel' in result))
    throw new Error(`getDMMF failed (${result.type}): ${result.reason} ${result.error?.message ?? ''}`);
  const dmmf: Dmmf = result;
  const models = dmmf.datamodel.models;
  const tableOf = (model: string) => {
    const m = models.find((x) => x.name === model)!;
    return m.dbName ?? m.name;
  };
  const columnOf = (model: string, field: string) => {
    const f = models.find((x) => x.name === model)!.fields.find((x) => x.name === field)!;
    return f.dbName ?? f.name;
  };
  const unsupported = unsupportedColumns(text);

  const tables: Table[] = [];
  const fks: FkSpec[] = [];
  for (const m of models) {
    const table = m.dbName ?? m.name;
    const columns: Column[] = m.fields
      .filter((f) => f.kind === 'scalar' || f.kind === 'enum')
      // Prisma renders scalar lists without NOT NULL, so their nullability is not checked.
      .map((f) => ({ name: f.dbName ?? f.name, type: fieldType(f), nullable: f.isList ? null : !f.isRequired }));
    columns.push(...(unsupported.get(m.name) ?? []));
    const pkFields = m.primaryKey ? [...m.primaryKey.fields] : m.fields.filter((f) => f.isId).map((f) => f.name);
    const pkColumns = pkFields.map((f) => columnOf(m.name, f));
    tables.push({
      model: m.name,
      name: table,
      columns,
      primaryKey: { name: m.primaryKey?.name ?? pkName(table), columns: pkColumns },
    });

    for (const f of m.fields) {
      if (f.kind !== 'object' || !f.relationFromFields?.length) continue;
      const columnsFk = f.relationFromFields.map((x) => columnOf(m.name, x));
      fks.push({
        table,
        name: fkName(table, columnsFk),
        columns: columnsFk,
        refTable: tableOf(f.type),
        refColumns: (f.relationToFields ?? []).map((x) => columnOf(f.type, x)),
        // Prisma's defaults: Restrict for required relations, SetNull for optional ones.
        onDelete: f.relationOnDelete ?? (f.isRequired ? 'Restrict' : 'SetNull'),
        what: `${m.name}.${f.name} relation`,
      });
    }
  }

  const indexes: IndexSpec[] = [];
  for (const idx of dmmf.datamodel.indexes) {
    if (idx.type !== 'unique' && idx.type !== 'normal') continue;
    const table = tableOf(idx.model);
    const columns = idx.fields.map((f) => columnOf(idx.model, f.name));
    const unique = idx.type === 'unique';
    const attr = idx.isDefinedOnField
      ? `@unique on ${idx.model}.${idx.fields[0].name}`
      : `${unique ? '@@unique' : '@@index'}([${idx.fields.map((f) => f.name).join(', ')}]) on ${idx.model}`;
    indexes.push({
      table,
      name: idx.dbName ?? indexName(table, columns, unique ? '_key' : '_idx'),
      columns,
      unique,
      what: attr,
    });
  }
  return { tables, indexes, fks };
}

const ON_DELETE: Record<string, string> = { a: 'NoAction', r: 'Restrict', c: 'Cascade', n: 'SetNull', d: 'SetDefault' };

/** Every disagreement between the schema and the database at url, one readable line each. */
async function drift(url: string, expected: Expected): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const cols = await client.query<{
      table_name: string;
      column_name: string;
      is_nullable: string;
      udt_name: string;
      datetime_precision: number | null;
    }>(
      `SELECT c.table_name, c.column_name, c.is_nullable, c.udt_name, c.datetime_precision
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name <> '_prisma_migrations'`,
    );
    const idx = await client.query<{
      table: string;
      name: string;
      unique: boolean;
      primary: boolean;
      partial: boolean;
      columns: (string | null)[];
    }>(
      `SELECT t.relname AS table, i.relname AS name, ix.indisunique AS unique, ix.indisprimary AS primary,
              ix.indpred IS NOT NULL AS partial,
              ARRAY(SELECT a.attname::text FROM unnest(ix.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
                    LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord) AS columns
         FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'`,
    );
    const fk = await client.query<{
      name: string;
      table: string;
      ref_table: string;
      confdeltype: string;
      columns: string[];
      ref_columns: string[];
    }>(
      `SELECT c.conname AS name, t.relname AS table, rt.relname AS ref_table, c.confdeltype,
              ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.ord) AS columns,
              ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum ORDER BY k.ord) AS ref_columns
         FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class rt ON rt.oid = c.confrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace WHERE c.contype = 'f' AND n.nspname = 'public'`,
    );

    const problems: string[] = [];
    const dbTables = new Map<string, typeof cols.rows>();
    for (const r of cols.rows) dbTables.set(r.table_name, [...(dbTables.get(r.table_name) ?? []), r]);

    for (const t of expected.tables) {
      const dbCols = dbTables.get(t.name);
      if (!dbCols) {
        problems.push(`missing table ${t.name} (model ${t.model})`);
        continue;
      }
      for (const c of t.columns) {
        const d = dbCols.find((x) => x.column_name === c.name);
        if (!d) {
          problems.push(`missing column ${t.name}.${c.name} (${c.type}${c.nullable === false ? ', required' : ''})`);
          continue;
        }
        const actual = dbType(d.udt_name, d.datetime_precision);
        if (actual !== c.type) problems.push(`type of ${t.name}.${c.name}: schema ${c.type}, database ${actual}`);
        const dbNullable = d.is_nullable === 'YES';
        if (c.nullable !== null && dbNullable !== c.nullable) {
          problems.push(
            `nullability of ${t.name}.${c.name}: schema ${c.nullable ? 'optional' : 'required'}, database ${dbNullable ? 'NULL' : 'NOT NULL'}`,
          );
        }
      }
      for (const d of dbCols) {
        if (!t.columns.some((c) => c.name === d.column_name))
          problems.push(`column ${t.name}.${d.column_name} is in the database but not in model ${t.model}`);
      }
      const pk = idx.rows.find((r) => r.table === t.name && r.primary);
      if (!pk) problems.push(`missing primary key on ${t.name} (${t.primaryKey.columns.join(', ')})`);
      else if (pk.name !== t.primaryKey.name || pk.columns.join() !== t.primaryKey.columns.join()) {
        problems.push(
          `primary key of ${t.name}: schema ${t.primaryKey.name}(${t.primaryKey.columns.join(', ')}), database ${pk.name}(${pk.columns.join(', ')})`,
        );
      }
    }
    for (const name of dbTables.keys()) {
      if (!expected.tables.some((t) => t.name === name))
        problems.push(`table ${name} is in the database but has no model`);
    }

    // A missing table is reported once, not once more per index and foreign key.
    for (const e of expected.indexes) {
      if (!dbTables.has(e.table)) continue;
      const sameColumns = (r: (typeof idx.rows)[number]) =>
        r.table === e.table && !r.partial && r.unique === e.unique && r.columns.join() === e.columns.join();
      const byName = idx.rows.find((r) => r.table === e.table && r.name === e.name);
      if (byName && sameColumns(byName)) continue;
      const other = idx.rows.find(sameColumns);
      if (other) problems.push(`index for ${e.what} is named ${other.name}; Prisma expects ${e.name}`);
      else if (byName)
        problems.push(
          `index ${e.name} (${e.what}) is (${byName.columns.join(', ')})${byName.unique ? ' unique' : ''}${byName.partial ? ' partial' : ''}; schema wants (${e.columns.join(', ')})${e.unique ? ' unique' : ''}`,
        );
      else problems.push(`missing ${e.unique ? 'unique index' : 'index'} ${e.name} for ${e.what}`);
    }

    for (const e of expected.fks) {
      if (!dbTables.has(e.table)) continue;
      const found = fk.rows.find(
        (r) => r.table === e.table && r.columns.join() === e.columns.join() && r.ref_table === e.refTable,
      );
      if (!found) {
        problems.push(
          `missing foreign key ${e.name} ${e.table}(${e.columns.join(', ')}) -> ${e.refTable} for ${e.what}`,
        );
        continue;
      }
      const onDelete = ON_DELETE[found.confdeltype];
      if (onDelete !== e.onDelete)
        problems.push(`foreign key ${found.name}: schema onDelete ${e.onDelete}, database ${onDelete}`);
      if (found.ref_columns.join() !== e.refColumns.join())
        problems.push(
          `foreign key ${found.name} references (${found.ref_columns.join(', ')}), schema (${e.refColumns.join(', ')})`,
        );
      if (found.name !== e.name)
        problems.push(`foreign key for ${e.what} is named ${found.name}; Prisma expects ${e.name}`);
    }
    return problems;
  } finally {
    await client.end();
  }
}

describe('schema.prisma vs the migrated database', () => {
  let t: TestDb;
  let expected: Expected;
  beforeAll(async () => {
    [t, expected] = await Promise.all([createTestDb(), expectedFromSchema()]);
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('reads every model of the schema', () => {
    expect(expected.tables.length).toBe(39);
    expect(expected.tables.find((x) => x.name === 'evidence_index_segments')!.columns).toContainEqual({
      name: 'tsv',
      type: 'tsvector',
      nullable: true,
    });
    expect(expected.indexes.length).toBeGreaterThan(30);
    expect(expected.fks.length).toBe(21);
  });

  it('has no drift', async () => {
    expect(await drift(t.url, expected)).toEqual([]);
  });

  it('reports drift it is shown', async () => {
    const d = await createTestDb();
    try {
      const c = new Client({ connectionString: d.url });
      await c.connect();
      await c.query(`
        ALTER TABLE users DROP COLUMN name;
        ALTER TABLE sessions ALTER COLUMN revoked_at SET NOT NULL;
        ALTER TABLE jobs ALTER COLUMN percent TYPE bigint;
        ALTER TABLE files ADD COLUMN surprise text;
        DROP INDEX jobs_status_idx;
        ALTER INDEX users_email_key RENAME TO users_email_unique;
        ALTER TABLE memberships DROP CONSTRAINT memberships_user_id_fkey;
        ALTER TABLE files DROP CONSTRAINT files_folder_id_fkey;
        ALTER TABLE files ADD CONSTRAINT files_folder_id_fkey FOREIGN KEY (folder_id) REFERENCES folders(id) ON DELETE CASCADE;
        DROP TABLE knowledge_base_job_credit_reservations;`);
      await c.end();
      expect((await drift(d.url, expected)).sort()).toEqual(
        [
          'missing table knowledge_base_job_credit_reservations (model KnowledgeBaseJobCreditReservation)',
          'missing column users.name (text)',
          'nullability of sessions.revoked_at: schema optional, database NOT NULL',
          'type of jobs.percent: schema int, database bigint',
          'column files.surprise is in the database but not in model File',
          'missing index jobs_status_idx for @@index([status]) on Job',
          'index for @unique on User.email is named users_email_unique; Prisma expects users_email_key',
          'missing foreign key memberships_user_id_fkey memberships(user_id) -> users for Membership.user relation',
          'foreign key files_folder_id_fkey: schema onDelete SetNull, database Cascade',
        ].sort(),
      );
    } finally {
      await d.drop();
    }
  });
});

describe('what the migration adds beyond Prisma', () => {
  let t: TestDb;
  let c: Client;
  const ORG = '00000000-0000-4000-8000-000000000001';
  const ORG2 = '00000000-0000-4000-8000-000000000002';
  const KB = '00000000-0000-4000-8000-0000000000b1';

  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: { code?: string }) => e.code,
    );

  beforeAll(async () => {
    t = await createTestDb();
    c = new Client({ connectionString: t.url });
    await c.connect();
    await c.query(`INSERT INTO organizations (id, name) VALUES ('${ORG}', 'o1'), ('${ORG2}', 'o2')`);
  });
  afterAll(async () => {
    await c?.end();
    await t?.drop();
  });

  it('has the indexes, extension and checks in the catalog', async () => {
    const { rows } = await c.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`,
    );
    const def = (name: string) => rows.find((r) => r.indexname === name)?.indexdef ?? `(no index ${name})`;
    expect(def('knowledge_bases_org_id_lower_name_key')).toMatch(/UNIQUE INDEX .* \(org_id, lower\(name\)\)$/);
    expect(def('folders_knowledge_base_id_parent_folder_id_lower_name_key')).toMatch(
      /UNIQUE .*lower\(name\)\) NULLS NOT DISTINCT$/,
    );
    expect(def('files_live_knowledge_base_id_folder_id_filename_key')).toMatch(
      /UNIQUE .*NULLS NOT DISTINCT WHERE \(deleted_at IS NULL\)$/,
    );
    expect(def('evidence_index_segments_tsv_idx')).toMatch(/USING gin \(tsv\)$/);
    expect(def('evidence_index_segments_knowledge_base_id_tsv_idx')).toMatch(/USING gin \(knowledge_base_id, tsv\)$/);
    expect(def('search_postings_kb_term_file_covering_idx')).toMatch(
      /\(knowledge_base_id, term, file_id\) INCLUDE \(segment_row_id, tf, dl\)$/,
    );
    expect(def('files_live_knowledge_base_id_filename_id_idx')).toMatch(
      /\(knowledge_base_id, filename, id\) WHERE \(deleted_at IS NULL\)$/,
    );
    expect(def('evidence_index_segments_file_version_id_ordinal_idx')).toMatch(/\(file_version_id, ordinal\)$/);
    expect(def('evidence_index_segments_kb_table_idx')).toMatch(/\(knowledge_base_id\) WHERE is_table$/);
    const ext = await c.query(`SELECT 1 FROM pg_extension WHERE extname = 'btree_gin'`);
    expect(ext.rowCount).toBe(1);
    const checks = await c.query<{ conname: string }>(
      `SELECT conname FROM pg_constraint WHERE contype = 'c' ORDER BY conname`,
    );
    expect(checks.rows.map((r) => r.conname)).toEqual(
      expect.arrayContaining([
        'credit_accounts_balance_credits_check',
        'credit_reservations_debited_credits_check',
        'credit_reservations_status_check',
        'jobs_kind_check',
        'jobs_percent_check',
        'jobs_status_check',
        'ledger_entries_kind_check',
        'memberships_role_check',
        'operations_status_check',
      ]),
    );
  });

  it('makes knowledge base names unique per organisation, case-insensitively', async () => {
    await c.query(`INSERT INTO knowledge_bases (id, org_id, name) VALUES ('${KB}', '${ORG}', 'Docs')`);
    expect(await code(c.query(`INSERT INTO knowledge_bases (org_id, name) VALUES ('${ORG}', 'DOCS')`))).toBe('23505');
    expect(await code(c.query(`INSERT INTO knowledge_bases (org_id, name) VALUES ('${ORG2}', 'docs')`))).toBe('ok');
  });

  it('makes sibling folder names unique, top level included', async () => {
    const ins = (name: string, parent: string | null) =>
      c.query(
        `INSERT INTO folders (org_id, knowledge_base_id, parent_folder_id, name) VALUES ($1, $2, $3, $4) RETURNING id`,
        [ORG, KB, parent, name],
      );
    const top = (await ins('Reports', null)).rows[0].id as string;
    expect(await code(ins('reports', null))).toBe('23505');
    expect(await code(ins('Reports', top))).toBe('ok');
    expect(await code(ins('REPORTS', top))).toBe('23505');
  });

  it('makes live filenames unique per folder, root included; trashed files free the name', async () => {
    const ins = () =>
      c.query(
        `INSERT INTO files (org_id, knowledge_base_id, filename, content_type) VALUES ($1, $2, 'a.pdf', 'application/pdf') RETURNING id`,
        [ORG, KB],
      );
    const first = (await ins()).rows[0].id as string;
    expect(await code(ins())).toBe('23505');
    await c.query(`UPDATE files SET deleted_at = now() WHERE id = $1`, [first]);
    expect(await code(ins())).toBe('ok');
    expect(await code(c.query(`UPDATE files SET deleted_at = NULL WHERE id = $1`, [first]))).toBe('23505');
  });

  it('rejects values outside the documented sets and broken credit invariants', async () => {
    expect(
      await code(
        c.query(`INSERT INTO memberships (org_id, user_id, role) SELECT '${ORG}', gen_random_uuid(), 'owner'`),
      ),
    ).toBe('23514');
    expect(
      await code(
        c.query(`INSERT INTO credit_accounts (org_id, balance_credits, period_start) VALUES ('${ORG}', -1, now())`),
      ),
    ).toBe('23514');
    expect(
      await code(
        c.query(
          `INSERT INTO credit_reservations (org_id, amount_credits, debited_credits, status) VALUES ('${ORG}', 5, 6, 'reserved')`,
        ),
      ),
    ).toBe('23514');
    expect(
      await code(
        c.query(`INSERT INTO credit_reservations (org_id, amount_credits, status) VALUES ('${ORG}', 5, 'pending')`),
      ),
    ).toBe('23514');
    expect(
      await code(
        c.query(
          `INSERT INTO ledger_entries (org_id, kind, amount_credits, balance_after, idempotency_key, reason) VALUES ('${ORG}', 'refund', 1, 1, 'k', 'r')`,
        ),
      ),
    ).toBe('23514');
    expect(
      await code(
        c.query(
          `INSERT INTO operations (org_id, operation_type, status, permission, idempotency_key) VALUES ('${ORG}', 'split_run', 'running', 'p', 'k')`,
        ),
      ),
    ).toBe('23514');
  });

  it('permanent file deletion takes derived rows and keeps operations and billing history', async () => {
    const file = (
      await c.query(
        `INSERT INTO files (org_id, knowledge_base_id, filename, content_type) VALUES ($1, $2, 'gone.pdf', 'application/pdf') RETURNING id`,
        [ORG, KB],
      )
    ).rows[0].id as string;
    const ver = (
      await c.query(
        `INSERT INTO file_versions (file_id, version_number, storage_path, sha256, byte_size, content_type, original_filename) VALUES ($1, 1, 's', 'h', 1, 'application/pdf', 'gone.pdf') RETURNING id`,
        [file],
      )
    ).rows[0].id as string;
    await c.query(`UPDATE files SET current_version_id = $1 WHERE id = $2`, [ver, file]);
    await c.query(`INSERT INTO page_versions (file_version_id, page_number, content_hash) VALUES ($1, 1, 'h')`, [ver]);
    const job = (
      await c.query(
        `INSERT INTO jobs (org_id, knowledge_base_id, file_id, file_version_id, kind, status, idempotency_key) VALUES ($1, $2, $3, $4, 'parse', 'completed', 'k1') RETURNING id`,
        [ORG, KB, file, ver],
      )
    ).rows[0].id as string;
    await c.query(`INSERT INTO job_events (job_id, event_type, message) VALUES ($1, 'done', 'm')`, [job]);
    const am = (
      await c.query(
        `INSERT INTO artifact_manifests (org_id, file_id, file_version_id, job_id, artifact_type, storage_prefix) VALUES ($1, $2, $3, $4, 'parse', 'p') RETURNING id`,
        [ORG, file, ver, job],
      )
    ).rows[0].id as string;
    await c.query(
      `INSERT INTO evidence_index_segments (org_id, knowledge_base_id, file_id, file_version_id, artifact_manifest_id, segment_id, ordinal, title, markdown, source_type, tsv) VALUES ($1, $2, $3, $4, $5, 's1', 0, 't', 'm', 'text', to_tsvector('simple', 'revenue'))`,
      [ORG, KB, file, ver, am],
    );
    await c.query(
      `INSERT INTO extraction_results (org_id, file_id, file_version_id, result, model_id) VALUES ($1, $2, $3, '{}', 'm')`,
      [ORG, file, ver],
    );
    await c.query(
      `INSERT INTO operations (org_id, knowledge_base_id, file_id, operation_type, status, permission, idempotency_key) VALUES ($1, $2, $3, 'split_run', 'completed', 'p', 'k1')`,
      [ORG, KB, file],
    );
    await c.query(
      `INSERT INTO credit_reservations (org_id, file_id, job_id, amount_credits, status) VALUES ($1, $2, $3, 3, 'committed')`,
      [ORG, file, job],
    );
    await c.query(
      `INSERT INTO ledger_entries (org_id, kind, amount_credits, balance_after, idempotency_key, reason, file_id, job_id) VALUES ($1, 'debit', -1, 9, 'k1', 'parse', $2, $3)`,
      [ORG, file, job],
    );

    const search = await c.query(
      `SELECT count(*)::int AS n FROM evidence_index_segments WHERE knowledge_base_id = $1 AND tsv @@ to_tsquery('simple', 'revenue')`,
      [KB],
    );
    expect(search.rows[0].n).toBe(1);

    await c.query(`DELETE FROM files WHERE id = $1`, [file]);
    const count = async (table: string) =>
      (
        await c.query(
          `SELECT count(*)::int AS n FROM ${table} WHERE ${table === 'page_versions' ? 'true' : table === 'job_events' ? `job_id = '${job}'` : `file_id = '${file}'`}`,
        )
      ).rows[0].n;
    for (const table of [
      'file_versions',
      'page_versions',
      'jobs',
      'job_events',
      'artifact_manifests',
      'evidence_index_segments',
      'extraction_results',
    ]) {
      expect([table, await count(table)]).toEqual([table, 0]);
    }
    for (const table of ['operations', 'credit_reservations', 'ledger_entries']) {
      expect([table, await count(table)]).toEqual([table, 1]);
    }
  });

  it('deletes a knowledge base with its folders and files, same-named files in a folder and the root included', async () => {
    const kb = (await c.query(`INSERT INTO knowledge_bases (org_id, name) VALUES ($1, 'tmp') RETURNING id`, [ORG]))
      .rows[0].id as string;
    const folder = (
      await c.query(`INSERT INTO folders (org_id, knowledge_base_id, name) VALUES ($1, $2, 'f') RETURNING id`, [
        ORG,
        kb,
      ])
    ).rows[0].id as string;
    await c.query(
      `INSERT INTO files (org_id, knowledge_base_id, folder_id, filename, content_type) VALUES ($1, $2, NULL, 'x.pdf', 'a'), ($1, $2, $3, 'x.pdf', 'a')`,
      [ORG, kb, folder],
    );
    await c.query(
      `INSERT INTO knowledge_base_jobs (org_id, knowledge_base_id, kind, status) VALUES ($1, $2, 'reindex', 'queued')`,
      [ORG, kb],
    );
    await c.query(`DELETE FROM knowledge_bases WHERE id = $1`, [kb]);
    for (const table of ['files', 'folders', 'knowledge_base_jobs']) {
      const n = (await c.query(`SELECT count(*)::int AS n FROM ${table} WHERE knowledge_base_id = $1`, [kb])).rows[0].n;
      expect([table, n]).toEqual([table, 0]);
    }
  });

  it('deletes everything of an organisation with it', async () => {
    await c.query(`DELETE FROM organizations WHERE id = $1`, [ORG]);
    const left = await c.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM knowledge_bases WHERE org_id = $1) + (SELECT count(*) FROM files WHERE org_id = $1)
            + (SELECT count(*) FROM operations WHERE org_id = $1) + (SELECT count(*) FROM ledger_entries WHERE org_id = $1)
            + (SELECT count(*) FROM credit_reservations WHERE org_id = $1) AS n`,
      [ORG],
    );
    expect(Number(left.rows[0].n)).toBe(0);
  });
});
