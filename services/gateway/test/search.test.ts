import { addVersion, seedAndIndex, seg, type Seeded } from '@docfleet/testing';
import { startGateway, type Gateway } from './harness';

let gw: Gateway;
let key: string;
let orgId: string;
let kbId: string;
let folderId: string;
let invoice: Seeded;
let report: Seeded;
let sheet: Seeded;
let bulk: Seeded;
let trashed: Seeded;
let replaced: Seeded;

const search = (body: unknown, k = key, kb = kbId) =>
  gw.req('POST', `/v1/knowledge-bases/${kb}/search`, { key: k, body });
const ids = (r: { body: { hits: Array<{ segmentId: string }> } }) => r.body.hits.map((h) => h.segmentId);

beforeAll(async () => {
  gw = await startGateway();
  ({ key, orgId } = await gw.createOrg());
  kbId = (await gw.createKnowledgeBase(key, 'Finance')).id;
  folderId = (await gw.req('POST', `/v1/knowledge-bases/${kbId}/folders`, { key, body: { name: 'Reports' } })).body
    .folder.id;
  invoice = await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    filename: 'invoice-1001.pdf',
    segments: [
      seg('inv-head', 'Invoice INV-1001 issued 2023-03-15 to Globex Corporation.', { title: 'Invoice INV-1001' }),
      seg('inv-total', 'Total amount due: $1,234.56 within 30 days.', { title: 'Invoice INV-1001' }),
      seg('inv-lines', '| Description | Qty | Price |\n|---|---|---|\n| Consulting hours | 10 | 100.00 |', {
        title: 'Invoice INV-1001',
        tableMetadata: {
          isTable: true,
          headers: ['Description', 'Qty', 'Price'],
          rowLabels: ['Consulting hours'],
          noteRefs: [],
        },
      }),
    ],
  });
  report = await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    folderId,
    filename: 'annual-report.pdf',
    segments: [
      seg('rep-text', 'Quarterly revenue grew strongly in the first quarter of 2022.¹', { title: 'Revenue', page: 2 }),
      seg('rep-table', 'Quarterly revenue grew strongly in the first quarter of 2022.', {
        title: 'Revenue',
        page: 2,
        tableMetadata: { isTable: true, headers: [], rowLabels: [], noteRefs: [] },
      }),
      seg('rep-note', '¹ Restated figures.', { title: 'Revenue', page: 2 }),
      seg('rep-charges', 'Bank charges were reduced in Q3 2023.', { title: 'Costs', page: 3 }),
    ],
  });
  sheet = await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    filename: 'budget.xlsx',
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    segments: [
      {
        id: 's0-t1-r2',
        title: 'Budget: Table 1 (rows 1-3)',
        markdown: '| Department | Budget 2024 |\n|---|---|\n| Marketing | 5000 |',
        sourceType: 'spreadsheet',
        coordinates: {
          sheetIndex: 0,
          sheetName: 'Budget',
          startRow: 1,
          endRow: 3,
          startCol: 1,
          endCol: 2,
          rangeA1: 'Budget!A1:B3',
          sourceType: 'spreadsheet',
        },
        tableMetadata: { isTable: true, headers: ['Department', 'Budget 2024'], rowLabels: ['Marketing'] },
      },
    ],
  });
  bulk = await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    filename: 'bulk.pdf',
    segments: Array.from({ length: 100 }, (_, i) =>
      seg(`bulk-${String(i).padStart(3, '0')}`, `filler paragraph number ${i} about widgets`),
    ),
  });
  trashed = await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    filename: 'trashed.pdf',
    segments: [seg('gone', 'Invoice for widgets, trashed')],
  });
  await gw.db.file.update({ where: { id: trashed.fileId }, data: { deleted_at: new Date() } });
  replaced = await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    filename: 'replaced.pdf',
    segments: [seg('old-version', 'Invoice for widgets, old version')],
  });
  await addVersion(gw.deps, { kbId, fileId: replaced.fileId });
});
afterAll(() => gw.close());

describe('POST /v1/knowledge-bases/{kbId}/search', () => {
  it('answers with the documented envelope and every field of a hit', async () => {
    const r = await search({ query: 'consulting hours price' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['hits', 'index_version', 'knowledge_base_id', 'snapshot', 'status']);
    expect(r.body).toMatchObject({
      knowledge_base_id: kbId,
      status: 'ready',
      index_version: expect.stringMatching(/^\d+$/),
    });
    expect(r.body.snapshot).toEqual({
      segment_count: expect.any(Number),
      file_count: expect.any(Number),
      indexed_at: expect.any(String),
      pending_updates: 0,
    });
    const hit = r.body.hits[0];
    expect(hit).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      fileId: invoice.fileId,
      docId: invoice.fileId,
      fileVersionId: invoice.versionId,
      artifactManifestId: invoice.manifestId,
      segmentId: 'inv-lines',
      docName: 'invoice-1001.pdf',
      title: 'Invoice INV-1001',
      markdown: expect.stringContaining('Consulting hours'),
      score: expect.any(Number),
      sourceType: 'pdf',
      coordinates: {
        pageNumber: 1,
        xmin: expect.any(Number),
        ymin: 100,
        xmax: expect.any(Number),
        ymax: 200,
        sourceType: 'pdf',
      },
      tableMetadata: {
        isTable: true,
        headers: ['Description', 'Qty', 'Price'],
        rowLabels: ['Consulting hours'],
        noteRefs: [],
      },
      noteRefs: [],
      years: [],
      quarters: [],
      neighbors: { previousSegmentId: 'inv-total', nextSegmentId: null, noteSegmentIds: [] },
    });
    expect(hit.score).toBeGreaterThan(0);
  });

  it('shows spreadsheet coordinates, years, quarters and footnote links', async () => {
    const s = (await search({ query: 'marketing budget' })).body.hits[0];
    expect(s).toMatchObject({
      segmentId: 's0-t1-r2',
      sourceType: 'spreadsheet',
      years: [2024],
      coordinates: {
        sheetIndex: 0,
        sheetName: 'Budget',
        startRow: 1,
        endRow: 3,
        startCol: 1,
        endCol: 2,
        rangeA1: 'Budget!A1:B3',
      },
    });
    const rep = (await search({ query: 'revenue', table_only: false })).body.hits.find(
      (h: any) => h.segmentId === 'rep-text',
    );
    expect(rep).toMatchObject({
      years: [2022],
      quarters: ['Q1'],
      noteRefs: ['¹'],
      neighbors: { previousSegmentId: null, nextSegmentId: 'rep-table', noteSegmentIds: ['rep-note'] },
    });
  });

  it('ranks by cover density with a small boost for tables', async () => {
    const r = await search({ query: 'quarterly revenue first quarter' });
    expect(ids(r).slice(0, 2)).toEqual(['rep-table', 'rep-text']);
    const [t, x] = r.body.hits;
    expect(t.score / x.score).toBeCloseTo(1.15, 1);
    // a segment with every query word beats one with a single word
    const all = await search({ query: 'total amount due days' });
    expect(ids(all)[0]).toBe('inv-total');
  });

  it('drops filler words and applies synonyms (bills also matches invoice and charges)', async () => {
    const bills = ids(await search({ query: 'Show me the BILLS please' }));
    expect(bills).toEqual(expect.arrayContaining(['inv-head', 'rep-charges']));
    expect(ids(await search({ query: 'what is the invoices' }))).toContain('inv-head');
    expect(ids(await search({ query: 'vat' }))).toEqual([]);
    expect((await search({ query: 'the of and what' })).body.hits).toEqual([]);
  });

  it('never returns trashed files or old versions, even before the index worker removes them', async () => {
    expect(
      await gw.db.evidenceIndexSegment.count({ where: { file_id: { in: [trashed.fileId, replaced.fileId] } } }),
    ).toBe(2);
    const r = await search({ query: 'invoice widgets', limit: 80 });
    const files = new Set(r.body.hits.map((h: any) => h.fileId));
    expect(files.has(trashed.fileId) || files.has(replaced.fileId)).toBe(false);
    expect((await search({ query: '', file_ids: [trashed.fileId, replaced.fileId] })).body.hits).toEqual([]);
  });

  it('applies every filter, in snake_case and camelCase', async () => {
    const q = 'revenue charges invoice budget';
    expect(new Set(ids(await search({ query: q, file_ids: [report.fileId] })))).toEqual(
      new Set(['rep-text', 'rep-table', 'rep-note', 'rep-charges']),
    );
    expect(ids(await search({ query: q, fileIds: [sheet.fileId] }))).toEqual(['s0-t1-r2']);
    const inFolder = new Set((await search({ query: q, folder_id: folderId })).body.hits.map((h: any) => h.fileId));
    expect([...inFolder]).toEqual([report.fileId]);
    expect(new Set((await search({ query: q, folderId })).body.hits.map((h: any) => h.fileId))).toEqual(inFolder);
    expect(new Set(ids(await search({ query: q, years: [2022, 2024] })))).toEqual(
      new Set(['rep-text', 'rep-table', 's0-t1-r2']),
    );
    expect(ids(await search({ query: q, years: [1999] }))).toEqual([]);
    expect(ids(await search({ query: q, source_type: 'spreadsheet' }))).toEqual(['s0-t1-r2']);
    expect(ids(await search({ query: q, sourceType: 'SPREADSHEET' }))).toEqual(['s0-t1-r2']);
    const tables = (await search({ query: q, table_only: true })).body.hits;
    expect(tables.length).toBeGreaterThan(0);
    expect(tables.every((h: any) => h.tableMetadata.isTable)).toBe(true);
    expect(ids(await search({ query: q, tableOnly: true })).sort()).toEqual(tables.map((h: any) => h.segmentId).sort());
    expect(ids(await search({ query: q, file_ids: [], years: [] })).length).toBeGreaterThan(4);
    // snake_case wins when both are sent
    expect(ids(await search({ query: q, file_ids: [sheet.fileId], fileIds: [invoice.fileId] }))).toEqual(['s0-t1-r2']);
    const unknownFolder = await search({ query: q, folder_id: '00000000-0000-4000-8000-000000000000' });
    expect({ status: unknownFolder.status, code: unknownFolder.body.code }).toEqual({
      status: 404,
      code: 'folder_not_found',
    });
  });

  it('blank query applies the filters alone, in file then segment order', async () => {
    const r = await search({ query: '   ', file_ids: [report.fileId, invoice.fileId] });
    expect(ids(r)).toEqual(['rep-text', 'rep-table', 'rep-note', 'rep-charges', 'inv-head', 'inv-total', 'inv-lines']);
    expect(r.body.hits.every((h: any) => h.score === 0)).toBe(true);
    expect(ids(await search({ file_ids: [invoice.fileId], table_only: true }))).toEqual(['inv-lines']);
    expect(ids(await search({ query: null, fileIds: [sheet.fileId] }))).toEqual(['s0-t1-r2']);
  });

  it('defaults limit to 30 and caps it at 80', async () => {
    expect((await search({ query: 'widgets filler' })).body.hits).toHaveLength(30);
    expect((await search({ query: 'widgets filler', limit: 500 })).body.hits).toHaveLength(80);
    expect((await search({ query: 'widgets', limit: 3 })).body.hits).toHaveLength(3);
    expect((await search({ file_ids: [bulk.fileId], limit: 100 })).body.hits).toHaveLength(80);
  });

  it('answers 400 invalid_request_body for a malformed body', async () => {
    const bad: unknown[] = [
      { query: 5 },
      { query: 'x'.repeat(4001) },
      { query: 'nul\u0000byte' },
      { limit: 0 },
      { limit: -1 },
      { limit: 2.5 },
      { limit: '10' },
      { file_ids: ['not-a-uuid'] },
      { fileIds: 'x' },
      { folder_id: 'x' },
      { years: ['2023'] },
      { years: 2023 },
      { source_type: 7 },
      { table_only: 'yes' },
      { tableOnly: 1 },
      [],
      'just a string',
      42,
    ];
    for (const body of bad) {
      const r = await search(body);
      expect({ body, status: r.status, code: r.body.code }).toEqual({
        body,
        status: 400,
        code: 'invalid_request_body',
      });
    }
    const raw = await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, { key, raw: '{"query": "unterminated' });
    expect({ status: raw.status, code: raw.body.code }).toEqual({ status: 400, code: 'invalid_request_body' });
    expect((await search({ query: 'x'.repeat(4000) })).status).toBe(200);
  });

  it('survives hostile queries: quotes, backslashes, tsquery operators, SQL, emoji, non-Latin text', async () => {
    const nasty = [
      "'",
      '"',
      '\\',
      "\\'",
      "''",
      '"; DROP TABLE files; --',
      "'; DELETE FROM evidence_index_segments; --",
      "invoice' OR '1'='1",
      'a & b | !c',
      '!!!',
      '&&',
      '||',
      '<->',
      '<2>',
      'foo:*',
      'foo:A',
      ':*',
      '(((',
      ')))',
      '()',
      '!(invoice)',
      "'invoice' & 'total'",
      '$1',
      '$$',
      '%s %d',
      '%',
      '_',
      '/* comment */',
      '-- comment',
      ';',
      "E'\\x00'",
      '\\x00',
      '\u200b\u200e\u202e',
      '\t\n\r',
      '😀🔥 invoice 💸',
      '請求書 合計',
      'فاتورة المجموع',
      'счёт итого',
      'Rechnung über 1.234,56 €',
      'ﬁnance ＩＮＶＯＩＣＥ',
      'e\u0301\u0301\u0301',
      '\ud83d',
      'a'.repeat(3999),
      `${'invoice '.repeat(499)}x`,
      'null',
      'undefined',
      'NaN',
      '[]',
      '{}',
      '<script>alert(1)</script>',
      '${jndi:ldap://x}',
      'total:amount due',
      'invoice-1001',
      '1,234.56',
      '2023-03-15',
      '-invoice',
      '"invoice total"',
    ];
    for (const query of nasty) {
      const r = await search({ query });
      expect({ query, status: r.status }).toEqual({ query, status: 200 });
      expect(Array.isArray(r.body.hits)).toBe(true);
    }
    expect(ids(await search({ query: "'; DROP TABLE files; -- invoice" }))).toContain('inv-head');
    expect(ids(await search({ query: 'ＩＮＶＯＩＣＥ' }))).toContain('inv-head');
    expect(await gw.db.file.count()).toBeGreaterThan(0);
    expect(await gw.db.evidenceIndexSegment.count()).toBeGreaterThan(100);
  });

  it('treats another organisation’s knowledge base as unknown and checks viewer access for people', async () => {
    const other = await gw.createOrg();
    const theirs = await search({ query: 'invoice' }, other.key);
    expect({ status: theirs.status, code: theirs.body.code }).toEqual({
      status: 404,
      code: 'knowledge_base_not_found',
    });
    const unknown = await search({ query: 'invoice' }, key, '00000000-0000-4000-8000-000000000000');
    expect({ status: unknown.status, code: unknown.body.code }).toEqual({
      status: 404,
      code: 'knowledge_base_not_found',
    });
    const bad = await search({ query: 'invoice' }, key, 'not-a-uuid');
    expect(bad.status).toBe(400);

    const viewer = await gw.createSession(orgId, 'viewer');
    const denied = await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, {
      headers: viewer.headers,
      body: { query: 'invoice' },
    });
    expect({ status: denied.status, code: denied.body.code }).toEqual({
      status: 403,
      code: 'knowledge_base_access_denied',
    });
    await gw.db.rbacGrant.create({
      data: {
        org_id: orgId,
        user_id: viewer.userId,
        resource_type: 'knowledge_base',
        resource_id: kbId,
        access_level: 'viewer',
      },
    });
    const allowed = await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, {
      headers: viewer.headers,
      body: { query: 'invoice' },
    });
    expect(allowed.status).toBe(200);
    expect(ids(allowed)).toContain('inv-head');
  });

  it('reports an empty index for a knowledge base nothing was indexed in', async () => {
    const kb2 = (await gw.createKnowledgeBase(key, 'Empty')).id;
    const r = await search({ query: 'invoice' }, key, kb2);
    expect(r.body).toEqual({
      knowledge_base_id: kb2,
      index_version: '0',
      status: 'empty',
      snapshot: { segment_count: 0, file_count: 0, indexed_at: null, pending_updates: 0 },
      hits: [],
    });
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await gw.req('GET', '/v1/openapi.json')).body;
    const op = doc.paths['/v1/knowledge-bases/{kbId}/search'].post;
    expect(
      Object.keys(op.requestBody.content['application/json'].schema.properties ?? doc.components.schemas),
    ).toBeDefined();
    expect(op.responses['200']).toBeDefined();
  });
});
