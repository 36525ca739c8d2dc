// `pnpm bench --only console`: the web console in headless Chromium (Debian's chromium, as in the
// end-to-end tests). Three figures:
//  - first-screen JavaScript: every script the sign-in screen loads, gzip-compressed, beside the whole
//    build's JavaScript (budget: 300 KB);
//  - drawing a page: time from the page image's load to its boxes on screen (the console's own
//    performance marks), for 500-element pages beside 10-element pages (budget: 100 ms);
//  - paging through a 200-page document: JS heap and DOM size after page 20 and after page 200 (the
//    page's memory must not grow with the pages visited).
// The console is served from its real build; the /v1 calls the viewer makes are answered by a local
// stand-in with a synthetic document, because what is measured is the browser's work, not the API's.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import type { GroundingDocument, GroundingElement } from '../libs/contracts/src/documents';
import { ensureConsoleBuilt, launchBrowser } from '../test/e2e/console/browser';
import { median, percentile, round, withSlowdown, type Row } from './lib';

export const name = 'console';

// Functions passed to page.evaluate and addInitScript run in the browser.
declare const sessionStorage: { setItem(k: string, v: string): void };

const DIST = path.resolve(__dirname, '../services/console/dist');
const W = 1275;
const H = 1650;
const TYPES: GroundingElement['type'][] = [
  'title',
  'heading',
  'text',
  'list_item',
  'table',
  'figure',
  'page_header',
  'page_footer',
  'key_value',
  'caption',
];

/** A white page with grey text-like bars: a real PNG of a 150 dpi letter page. */
function pagePng(): Buffer {
  const raw = Buffer.alloc((W * 3 + 1) * H, 255);
  for (let y = 0; y < H; y++) {
    raw[y * (W * 3 + 1)] = 0;
    if (y % 24 < 10 && y > 100 && y < H - 100)
      for (let x = 120; x < W - 120; x++) raw.fill(200, y * (W * 3 + 1) + 1 + x * 3, y * (W * 3 + 1) + 4 + x * 3);
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(W, 0);
  ihdr.writeUInt32BE(H, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** `perPage` elements in a grid over each page, with text and (for tables) cells. */
function grounding(pages: number, perPage: number): GroundingDocument {
  const cols = Math.ceil(Math.sqrt(perPage / 2));
  const rows = Math.ceil(perPage / cols);
  return {
    schema_version: '1.0',
    document: {
      filename: 'synthetic.pdf',
      file_type: 'pdf',
      page_count: pages,
      processed_at: new Date().toISOString(),
      mode: 'bench',
    },
    pages: Array.from({ length: pages }, (_, p) => ({
      page_number: p + 1,
      width: W,
      height: H,
      dpi: 150,
      elements: Array.from({ length: perPage }, (_, k) => {
        const c = k % cols;
        const r = Math.floor(k / cols);
        const bbox = {
          x1: 0.05 + (c * 0.9) / cols,
          y1: 0.05 + (r * 0.9) / rows,
          x2: 0.05 + ((c + 0.9) * 0.9) / cols,
          y2: 0.05 + ((r + 0.8) * 0.9) / rows,
        };
        const type = TYPES[k % TYPES.length]!;
        const el: GroundingElement = {
          id: `p${p + 1}-e${k}`,
          type,
          label: type,
          bbox,
          pixel_bbox: [bbox.x1 * W, bbox.y1 * H, bbox.x2 * W, bbox.y2 * H].map(Math.round) as [
            number,
            number,
            number,
            number,
          ],
          content: `Element ${k} of page ${p + 1}: some words a parser found here.`,
          markdown_anchor: `Element ${k} of page ${p + 1}: some words a parser found here.`,
        };
        if (type === 'table') {
          el.cellGrid = { rows: 'detected', cols: 'detected' };
          el.cells = [0, 1].flatMap((row) =>
            [0, 1].map((col) => ({
              row,
              col,
              rowSpan: 1,
              colSpan: 1,
              isHeader: row === 0,
              text: `${row},${col}`,
              bbox: {
                x1: bbox.x1 + (col * (bbox.x2 - bbox.x1)) / 2,
                x2: bbox.x1 + ((col + 1) * (bbox.x2 - bbox.x1)) / 2,
                y1: bbox.y1 + (row * (bbox.y2 - bbox.y1)) / 2,
                y2: bbox.y1 + ((row + 1) * (bbox.y2 - bbox.y1)) / 2,
              },
            })),
          );
        }
        return el;
      }),
    })),
  };
}

interface Doc {
  id: string;
  grounding: GroundingDocument;
}

async function serve(docs: Doc[]): Promise<{ url: string; server: Server }> {
  const png = pagePng();
  const byId = new Map(docs.map((d) => [d.id, d]));
  const server = createServer(async (req, res) => {
    const u = new URL(req.url!, 'http://x');
    const json = (v: unknown) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(v));
    };
    let m: RegExpExecArray | null;
    if ((m = /^\/v1\/files\/([^/]+)$/.exec(u.pathname)) && byId.has(m[1]!)) {
      return json({ file: { id: m[1], filename: `${m[1]}.pdf`, current_version: { id: `v-${m[1]}` } } });
    }
    if ((m = /^\/v1\/files\/([^/]+)\/artefacts$/.exec(u.pathname)) && byId.has(m[1]!)) {
      return json({
        artifacts: [
          {
            id: m[1],
            artifact_type: 'parse',
            file_version_id: `v-${m[1]}`,
            links: { pages: `/v1/artifacts/${m[1]}/pages`, grounding_json: `/v1/artifacts/${m[1]}/grounding_json` },
          },
        ],
      });
    }
    if ((m = /^\/v1\/artifacts\/([^/]+)\/grounding_json$/.exec(u.pathname)) && byId.has(m[1]!))
      return json(byId.get(m[1]!)!.grounding);
    if ((m = /^\/v1\/artifacts\/([^/]+)\/pages$/.exec(u.pathname)) && byId.has(m[1]!)) {
      const file = u.searchParams.get('file');
      if (file) {
        res.setHeader('content-type', 'image/png');
        return res.end(png);
      }
      return json({
        entries: byId.get(m[1]!)!.grounding.pages.map((p) => ({
          name: `page_${String(p.page_number).padStart(4, '0')}.png`,
          kind: 'file',
          url: '',
        })),
      });
    }
    const rel = u.pathname === '/' ? 'index.html' : u.pathname.slice(1);
    const file = path.join(DIST, path.normalize(rel));
    if (!file.startsWith(DIST)) {
      res.statusCode = 404;
      return res.end();
    }
    try {
      const body = await readFile(file);
      res.setHeader(
        'content-type',
        file.endsWith('.js')
          ? 'text/javascript'
          : file.endsWith('.css')
            ? 'text/css'
            : file.endsWith('.svg')
              ? 'image/svg+xml'
              : 'text/html',
      );
      res.end(body);
    } catch {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const gzipSize = async (file: string) => zlib.gzipSync(await readFile(file), { level: 9 }).length;

export async function run(): Promise<Row[]> {
  await ensureConsoleBuilt();
  const docs = [
    { id: 'small', grounding: grounding(20, 10) },
    { id: 'dense', grounding: grounding(20, 500) },
    { id: 'long', grounding: grounding(200, 60) },
  ];
  const { url, server } = await serve(docs);
  const browser = await launchBrowser();
  try {
    const rows: Row[] = [];
    // ---- first screen
    const ctx0 = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p0 = await ctx0.newPage();
    const scripts = new Set<string>();
    p0.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.add(new URL(r.url()).pathname);
    });
    await p0.goto(`${url}/`);
    await p0.getByRole('button', { name: 'Sign in' }).waitFor();
    await p0.waitForLoadState('networkidle');
    await ctx0.close();
    const assets = path.join(DIST, 'assets');
    const allJs = (await import('node:fs')).readdirSync(assets).filter((f) => f.endsWith('.js'));
    let first = 0;
    for (const s of scripts) first += await gzipSize(path.join(DIST, s));
    let all = 0;
    for (const f of allJs) all += await gzipSize(path.join(assets, f));
    rows.push({
      case: 'bundle: all JavaScript of the build (gzip)',
      baseline: true,
      throughput: round(all / 1024, 1),
      unit: 'KB',
      samples: allJs.length,
      note: `${allJs.length} files`,
    });
    rows.push({
      case: 'bundle: first screen JavaScript (gzip)',
      throughput: round(first / 1024, 1),
      unit: 'KB',
      samples: scripts.size,
      note: `budget 300 KB; ${[...scripts].map((s) => path.basename(s)).join(' ')}`,
    });

    // ---- drawing: 10 vs 500 elements, pages alternated between the two documents
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await ctx.addInitScript(() =>
      sessionStorage.setItem('docfleet.console.session', JSON.stringify({ kind: 'key', apiKey: 'bench-key' })),
    );
    const page = await ctx.newPage();
    const draw = async (doc: string, p: number): Promise<[number, number]> => {
      // a fresh load of the console for each page: nothing carried over from the previous one
      await page.goto('about:blank');
      await page.goto(`${url}/#/kb/bench/file/${doc}?page=${p}`);
      await page.locator(`[data-testid="page-overlay"][data-page="${p}"]`).waitFor();
      await page.waitForFunction(() => performance.getEntriesByName('docfleet:page-draw').length > 0);
      const d = await page.evaluate(
        () =>
          [
            performance.getEntriesByName('docfleet:page-draw').at(-1)!.duration,
            performance.getEntriesByName('docfleet:page-layout').at(-1)!.duration,
          ] as [number, number],
      );
      const boxes = await page.locator(`[data-testid="page-overlay"][data-page="${p}"] [data-element-id]`).count();
      const want = docs.find((x) => x.id === doc)!.grounding.pages[p - 1]!.elements.length;
      if (boxes !== want) throw new Error(`${doc} page ${p}: ${boxes} boxes drawn, ${want} elements`);
      return d;
    };
    const small: number[] = [];
    const dense: number[] = [];
    const smallLayout: number[] = [];
    const denseLayout: number[] = [];
    for (let p = 1; p <= 20; p++) {
      const [s1, s2] = await draw('small', p);
      const [d1, d2] = await draw('dense', p);
      // the first load of each warms the code paths; keep the rest
      if (p === 1) continue;
      small.push(s1);
      smallLayout.push(s2);
      dense.push(d1);
      denseLayout.push(d2);
    }
    rows.push({
      case: 'viewer: page with 10 boxes, image load → boxes drawn',
      baseline: true,
      throughput: round(1000 / median(small), 1),
      unit: 'pages/s',
      p50_ms: round(median(small)),
      p99_ms: round(percentile(small, 99)),
      samples: small.length,
    });
    rows.push({
      case: 'viewer: page with 500 boxes, image load → boxes drawn',
      throughput: round(1000 / median(dense), 1),
      unit: 'pages/s',
      p50_ms: round(median(dense)),
      p99_ms: round(percentile(dense, 99)),
      samples: dense.length,
      note: 'budget 100 ms',
    });
    rows.push({
      case: 'viewer: page with 10 boxes, image load → boxes laid out',
      throughput: round(1000 / median(smallLayout), 1),
      unit: 'pages/s',
      p50_ms: round(median(smallLayout)),
      p99_ms: round(percentile(smallLayout, 99)),
      samples: smallLayout.length,
      note: 'without the wait for the next frame',
    });
    rows.push({
      case: 'viewer: page with 500 boxes, image load → boxes laid out',
      throughput: round(1000 / median(denseLayout), 1),
      unit: 'pages/s',
      p50_ms: round(median(denseLayout)),
      p99_ms: round(percentile(denseLayout, 99)),
      samples: denseLayout.length,
      note: 'without the wait for the next frame',
    });

    // ---- paging through 200 pages with the keyboard: memory after page 20 and page 200
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Performance.enable');
    const memory = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      const { metrics } = await cdp.send('Performance.getMetrics');
      const get = (n: string) => metrics.find((m) => m.name === n)?.value ?? NaN;
      return { heapMiB: get('JSHeapUsedSize') / 2 ** 20, nodes: get('Nodes') };
    };
    await page.goto(`${url}/#/kb/bench/file/long?page=1`);
    await page.locator('[data-testid="page-overlay"][data-page="1"]').waitFor();
    await page.locator('.stage-scroll').focus();
    let at20 = { heapMiB: 0, nodes: 0 };
    const t0 = Date.now();
    for (let p = 2; p <= 200; p++) {
      await page.keyboard.press('ArrowRight');
      await page.locator(`[data-testid="page-overlay"][data-page="${p}"]`).waitFor();
      if (p === 20) at20 = await memory();
    }
    const seconds = (Date.now() - t0) / 1000;
    const at200 = await memory();
    const perPageKiB = ((at200.heapMiB - at20.heapMiB) * 1024) / 180;
    rows.push({
      case: 'viewer: 200-page document paged with the keyboard',
      throughput: round(199 / seconds, 1),
      unit: 'pages/s',
      samples: 199,
      note: `heap ${round(at20.heapMiB, 1)} MiB at page 20, ${round(at200.heapMiB, 1)} MiB at page 200 (${round(perPageKiB, 1)} KiB/page); DOM nodes ${at20.nodes} → ${at200.nodes}`,
      extra: { at20, at200, perPageKiB },
    });
    await ctx.close();
    // Sizes have no slowdown; the drawing rows compare with their own baseline.
    return [
      ...rows.slice(0, 2),
      ...withSlowdown(rows.slice(2, 4)),
      ...withSlowdown([{ ...rows[4]!, baseline: true }, rows[5]!]),
      rows[6]!,
    ];
  } finally {
    await browser.close();
    server.close();
  }
}
