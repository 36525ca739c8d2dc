// The tool server as a process, without a fleet: the tool catalogue against the table below (the promised catalogue)
// (names, parameters, read-only annotations, the destructive gate), the start-up contract
// (missing key: one stderr line and a non-zero exit; stdout carries only protocol), input
// validation messages, an independent client (the MCP inspector CLI), and the rule that the API
// key never appears in error text or logs, even when a server echoes it back.
import { execFile, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MAIN, TSX, connect, textOf, type McpSession } from './mcp-client';
import { ROOT, offlineEnv, waitUntil } from '@docfleet/testing';

const run = promisify(execFile);
const KEY = 'dfk_test_Secret_0123456789abcdef';
const NOWHERE = 'http://127.0.0.1:9'; // discard port: nothing answers
const UUID0 = '00000000-0000-4000-8000-000000000000';

/**
 * The promised tool table (counts in the root README, "Tool server and command line"):
 * name -> [required params, optional params].
 */
const SPEC: Record<string, [string[], string[]]> = {
  service_list_knowledge_bases: [[], []],
  service_create_knowledge_base: [['name'], ['description']],
  service_kb_index: [['kb_id'], []],
  service_list_files: [[], ['kb_id']],
  service_upload_file: [['path', 'kb_id'], ['folder_id']],
  service_parse_file: [['file_id'], []],
  service_parse_bulk: [['file_ids'], []],
  service_extract: [['file_id', 'schema'], []],
  service_extract_run: [['file_id'], ['schema_id', 'schema', 'segment_ids']],
  service_extract_bulk: [['file_ids'], ['schema_id']],
  service_classify: [['file_id', 'classes'], []],
  service_suggest_classes: [['file_id'], ['guidelines']],
  service_split: [['file_id'], ['suggest_rules', 'rules']],
  service_split_download: [['file_id', 'start_page', 'end_page', 'title'], ['out_dir']],
  service_generate_schema: [['file_id'], ['title']],
  service_list_schemas: [[], []],
  service_job_status: [['file_id', 'job_id'], ['include_events']],
  service_operation_status: [['operation_id'], []],
  service_read_artifact: [['file_id', 'key'], []],
  service_get_segments: [['file_id'], []],
  service_search: [
    ['kb_id', 'query'],
    ['limit', 'file_ids', 'table_only'],
  ],
  service_credits: [[], []],
  service_delete_file: [['file_id'], []],
  service_permanent_delete_file: [['file_id'], []],
  service_delete_knowledge_base: [['kb_id'], []],
};
const GATED = ['service_permanent_delete_file', 'service_delete_knowledge_base'];
const READ_ONLY = [
  'service_list_knowledge_bases',
  'service_kb_index',
  'service_list_files',
  'service_list_schemas',
  'service_job_status',
  'service_operation_status',
  'service_read_artifact',
  'service_get_segments',
  'service_search',
  'service_credits',
];

describe('tool catalogue', () => {
  let plain: McpSession;
  let full: McpSession;
  beforeAll(async () => {
    [plain, full] = await Promise.all([
      connect({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: NOWHERE }),
      connect({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: `${NOWHERE}///`, SERVICE_MCP_ALLOW_DESTRUCTIVE: 'yes' }),
    ]);
  });
  afterAll(async () => {
    await plain?.close();
    await full?.close();
  });

  it('registers 23 tools without the flag and 25 with it, 10 of them read-only, named and shaped as docs/api.md says', async () => {
    const { tools: without } = await plain.client.listTools();
    const { tools: withFlag } = await full.client.listTools();
    expect(without.map((t) => t.name).sort()).toEqual(
      Object.keys(SPEC)
        .filter((n) => !GATED.includes(n))
        .sort(),
    );
    expect(withFlag.map((t) => t.name).sort()).toEqual(Object.keys(SPEC).sort());
    expect(without).toHaveLength(23);
    expect(withFlag).toHaveLength(25);
    for (const list of [without, withFlag]) {
      expect(
        list
          .filter((t) => t.annotations?.readOnlyHint === true)
          .map((t) => t.name)
          .sort(),
      ).toEqual([...READ_ONLY].sort());
    }
    for (const t of withFlag) {
      const [required, optional] = SPEC[t.name];
      expect({ name: t.name, params: Object.keys(t.inputSchema.properties ?? {}).sort() }).toEqual({
        name: t.name,
        params: [...required, ...optional].sort(),
      });
      expect({ name: t.name, required: [...(t.inputSchema.required ?? [])].sort() }).toEqual({
        name: t.name,
        required: [...required].sort(),
      });
      expect(t.description!.length).toBeGreaterThan(60);
      expect(t.annotations?.title).toEqual(expect.any(String));
    }
    for (const name of [...GATED, 'service_delete_file'])
      expect(withFlag.find((t) => t.name === name)!.annotations).toMatchObject({
        destructiveHint: true,
        readOnlyHint: false,
      });
    expect(withFlag.find((t) => t.name === 'service_delete_knowledge_base')!.description).toMatch(/IRREVERSIBLE/);
  });

  it('says at start, in one stderr line, what it serves (base URL without trailing slashes, the gate)', async () => {
    expect(plain.stderr().trim().split('\n')).toEqual([
      expect.stringMatching(/23 tools over stdio for http:\/\/127\.0\.0\.1:9; permanent-delete tools off/),
    ]);
    expect(full.stderr().trim().split('\n')).toEqual([
      expect.stringMatching(/25 tools over stdio for http:\/\/127\.0\.0\.1:9; permanent-delete tools on$/),
    ]);
    for (const s of [plain, full]) expect(s.stderr()).not.toContain(KEY);
  });

  it('only true, 1 and yes open the gate', async () => {
    const values = ['1', 'TRUE', 'no', 'on'];
    const seen = await Promise.all(
      values.map(async (v) => {
        const s = await connect({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: NOWHERE, SERVICE_MCP_ALLOW_DESTRUCTIVE: v });
        const names = (await s.client.listTools()).tools.map((t) => t.name);
        await s.close();
        return { v, gated: GATED.every((g) => names.includes(g)) };
      }),
    );
    expect(seen).toEqual(values.map((v) => ({ v, gated: ['1', 'TRUE'].includes(v) })));
  });

  it('rejects bad arguments with messages that name the parameter and the fix', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['service_parse_file', { file_id: 'abc' }, /file_id must be a UUID/],
      ['service_parse_file', { file_id: UUID0, force: true }, /Unrecognized key.*force/],
      ['service_parse_bulk', { file_ids: [] }, /file_ids needs at least one file id/],
      ['service_upload_file', { path: 'relative/file.pdf', kb_id: UUID0 }, /path must be an absolute path/],
      [
        'service_extract',
        { file_id: UUID0, schema: { fields: [{ name: 'total' }] } },
        /looks like a field list.*service_extract_run/,
      ],
      [
        'service_extract',
        { file_id: UUID0, schema_id: UUID0, schema: { type: 'object', properties: {} } },
        /Unrecognized key.*schema_id/,
      ],
      ['service_extract_run', { file_id: UUID0 }, /exactly one of schema_id .* or schema/],
      ['service_extract_bulk', { file_ids: [UUID0] }, /schema_id is required/],
      ['service_classify', { file_id: UUID0, classes: [] }, /classes needs at least one class name/],
      ['service_split', { file_id: UUID0 }, /pass rules .* or suggest_rules: true/],
      ['service_split', { file_id: UUID0, suggest_rules: true, rules: [{ name: 'a', description: 'b' }] }, /not both/],
      [
        'service_split_download',
        { file_id: UUID0, start_page: 3, end_page: 2, title: 'x' },
        /end_page must be greater than or equal to start_page/,
      ],
      [
        'service_split_download',
        { file_id: UUID0, start_page: 0, end_page: 2, title: 'x' },
        /start_page must be at least 1/,
      ],
      [
        'service_read_artifact',
        { file_id: UUID0, key: 'result.md' },
        /key must be one of result_md, grounding_json, result_json, workbook_json, tables_json, pages, imgs/,
      ],
      ['service_search', { kb_id: UUID0, query: 'x', limit: 101 }, /limit must be at most 100/],
      ['service_job_status', { file_id: UUID0 }, /job_id/],
    ];
    for (const [tool, args, message] of cases) {
      const r = await plain.call(tool, args);
      expect({ tool, args, isError: r.isError, text: textOf(r) }).toEqual({
        tool,
        args,
        isError: true,
        text: expect.stringMatching(message),
      });
    }
  });

  it('refuses local paths that are not regular files within the size limit, before calling the API', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-paths-'));
    try {
      const small = await connect({
        SERVICE_API_KEY: KEY,
        SERVICE_BASE_URL: NOWHERE,
        SERVICE_MCP_MAX_UPLOAD_BYTES: '10',
      });
      const big = path.join(dir, 'big.pdf');
      await (await import('node:fs/promises')).writeFile(big, Buffer.alloc(11, 1));
      const cases: Array<[string, RegExp]> = [
        [dir, /is not a regular file/],
        ['/dev/zero', /is not a regular file/],
        [path.join(dir, 'missing.pdf'), /cannot read .*missing\.pdf: no such file/],
        [big, /big\.pdf is 11 bytes, over the upload limit of 10 bytes/],
      ];
      for (const [p, msg] of cases)
        expect(await small.error('service_upload_file', { path: p, kb_id: UUID0 })).toMatch(msg);
      await small.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('start-up contract', () => {
  it('without SERVICE_API_KEY exits non-zero with exactly one line on stderr and nothing on stdout', async () => {
    const r = await run(TSX, [MAIN], { cwd: ROOT, env: offlineEnv() }).catch((e) => e);
    expect(r.code).not.toBe(0);
    expect(r.code).toEqual(expect.any(Number));
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^docfleet-mcp: invalid configuration: SERVICE_API_KEY: required/),
    ]);
  });

  it('refuses a base URL that is not http(s) in one line', async () => {
    const r = await run(TSX, [MAIN], {
      cwd: ROOT,
      env: offlineEnv({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: 'ftp://example' }),
    }).catch((e) => e);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/SERVICE_BASE_URL: must be an http\(s\) URL/),
    ]);
    expect(r.stderr).not.toContain(KEY);
  });

  it('writes nothing but JSON-RPC messages on stdout (`pnpm --silent mcp`, raw pipes)', async () => {
    const child = spawn('pnpm', ['--silent', 'mcp'], {
      cwd: ROOT,
      env: offlineEnv({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: NOWHERE }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'service_credits', arguments: {} } });
    await waitUntil('the answer to the tools/call request (id 3) on stdout', () => out.includes('"id":3'), {
      timeoutMs: 30_000,
      detail: () => `stdout: ${out}\nstderr: ${err}`,
    });
    const exited = new Promise((r) => child.on('exit', r));
    child.stdin.end();
    await exited;
    const lines = out.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const l of lines) expect(JSON.parse(l)).toMatchObject({ jsonrpc: '2.0', id: expect.any(Number) });
    expect(JSON.parse(lines[1]).result.tools).toHaveLength(23);
    expect(JSON.parse(lines[2]).result).toMatchObject({ isError: true });
    expect(err.trim().split('\n')).toHaveLength(1);
  });
});

describe('an independent client', () => {
  it('the MCP inspector CLI lists the same 23 tools and finds no schema portability problem (--strict)', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'inspector-home-'));
    try {
      const bin = path.join(ROOT, 'services/mcp-server/node_modules/.bin/inspector');
      const { stdout, stderr } = await run(
        bin,
        [
          '--cli',
          '-e',
          `SERVICE_API_KEY=${KEY}`,
          '-e',
          `SERVICE_BASE_URL=${NOWHERE}`,
          'pnpm',
          '--silent',
          'mcp',
          '--method',
          'tools/list',
          '--strict',
        ],
        {
          cwd: ROOT,
          env: offlineEnv({ HOME: home }), // the inspector keeps its catalog under HOME
          maxBuffer: 10 * 1024 * 1024,
        },
      );
      const { tools } = JSON.parse(stdout);
      expect(tools).toHaveLength(23);
      expect(
        tools.filter((t: { annotations?: { readOnlyHint?: boolean } }) => t.annotations?.readOnlyHint).length,
      ).toBe(10);
      expect(stderr).not.toMatch(/warning|error/i);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('the API key stays secret', () => {
  let echo: Server;
  let url: string;
  beforeAll(async () => {
    // A misbehaving server (or proxy) that echoes the caller's key back in every failure.
    echo = createServer((req, res) => {
      const key = String(req.headers['x-api-key'] ?? '');
      if (req.url?.startsWith('/v1/billing')) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: `invalid key ${key}`,
            code: 'invalid_api_key',
            message: `you sent ${key}`,
            details: { key },
          }),
        );
      } else {
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end(`<h1>bad gateway for ${key}</h1>`);
      }
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => echo.close(() => r())));

  it('never appears in tool errors or on stderr, and errors still carry status, method, path, code and message', async () => {
    const s = await connect({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: url });
    const credits = await s.error('service_credits');
    expect(credits).not.toContain(KEY);
    expect(credits.split('\n')[0]).toBe(
      'GET /v1/billing/credits -> HTTP 401 invalid_api_key: invalid key [redacted] (you sent [redacted])',
    );
    expect(JSON.parse(credits.split('\n').at(-1)!).error).toMatchObject({
      status: 401,
      method: 'GET',
      path: '/v1/billing/credits',
      code: 'invalid_api_key',
    });
    const kbs = await s.error('service_list_knowledge_bases');
    expect(kbs).not.toContain(KEY);
    expect(kbs).toMatch(/^GET \/v1\/knowledge-bases -> HTTP 502 http_502: <h1>bad gateway for \[redacted\]<\/h1>/);
    const unreachable = await connect({ SERVICE_API_KEY: KEY, SERVICE_BASE_URL: NOWHERE });
    const down = await unreachable.error('service_kb_index', { kb_id: UUID0 });
    await unreachable.close();
    expect(down).toMatch(
      new RegExp(
        `^GET /v1/knowledge-bases/${UUID0}/index -> network_error: .*\\nIs the docfleet gateway running at ${NOWHERE}\\?`,
      ),
    );
    await s.close();
    expect(s.stderr()).not.toContain(KEY);
  });
});
