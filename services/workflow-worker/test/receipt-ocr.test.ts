// Scanned receipts through the HTTP API with the real parse and workflow workers (issue 23): an
// image is OCR'd with the preprocessing its pixels call for and read as printed rows (a label and
// its amount on one line, every element with its box); an image with ink but no text completes
// with a warning, and extraction on it names what was sent; the built-in offline model extracts
// a receipt's company, date, address and total, each value cited by a quote that contains it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { citationVerifiable, valueAt } from '@docfleet/models/metrics';
import type { DocfleetClient } from '@docfleet/sdk';
import { corpus, startWorkflowStack, type WorkflowStack } from './stack';

const RECEIPT = corpus('c_scanned_images/sroie/010.jpg');

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Receipt',
  type: 'object',
  properties: {
    company: { type: 'string', description: 'Company (shop) that issued the receipt' },
    date: { type: 'string', format: 'date', description: 'Date of the receipt' },
    address: { type: 'string', description: 'Postal address of the company' },
    total: { type: 'number', description: 'Total amount paid' },
  },
};

let s: WorkflowStack;
let c: DocfleetClient;
let kbId: string;
let tmp: string;
beforeAll(async () => {
  s = await startWorkflowStack({ modelEnv: { MODEL_DEFAULT: 'docfleet-local' } });
  const org = await s.gw.createOrg({ credits: 1000 });
  c = s.client(org.key);
  kbId = (await c.knowledgeBases.create({ name: 'Receipts' })).knowledge_base.id;
  tmp = await mkdtemp(path.join(os.tmpdir(), 'docfleet-receipt-'));
}, 120_000);
afterAll(async () => {
  await s.close();
  await rm(tmp, { recursive: true, force: true });
});

async function parse(file: string) {
  const fileId = (await c.files.upload(file, { knowledgeBaseId: kbId })).file.id;
  const { job } = await c.files.parse(fileId);
  const done = await c.waitForJob(fileId, job.job_id);
  return { fileId, jobId: job.job_id, done };
}

describe('a scanned receipt', () => {
  let fileId: string;

  it('is read as printed rows with a box for every element, and the page reports its OCR path', async () => {
    const r = await parse(RECEIPT);
    fileId = r.fileId;
    expect(r.done.status).toBe('completed');
    const manifestId = (r.done.result as { artifact_manifest_id: string }).artifact_manifest_id;
    const md = String(await c.artifacts.get(manifestId, 'result_md'));
    const lines = md
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    // Labels and their amounts stay on one line; the shop's name is a line of its own, first.
    expect(lines[0]).toBe('SAM SAM TRADING CO');
    expect(lines).toContain('TOTAL RM 14.10');
    expect(lines.some((l) => /^CASH R\S 20\.00$/.test(l))).toBe(true);
    expect(lines.some((l) => /THANK YOU FOR SHOPPING/.test(l))).toBe(true);
    expect(md).not.toMatch(/^\|/m); // a receipt's totals are not a table

    const grounding = (await c.artifacts.get(manifestId, 'grounding_json')) as any;
    const page = grounding.pages[0];
    expect(page.elements.length).toBeGreaterThan(15);
    for (const el of page.elements) {
      expect(el.bbox.x1).toBeLessThan(el.bbox.x2);
      expect(el.bbox.y1).toBeLessThan(el.bbox.y2);
      expect(el.bbox.x1).toBeGreaterThanOrEqual(0);
      expect(el.bbox.y2).toBeLessThanOrEqual(1);
    }
    // The total's box is where the total is printed: below the middle of the receipt, full width.
    const total = page.elements.find((e: any) => e.content === 'TOTAL RM 14.10');
    expect(total.bbox.y1).toBeGreaterThan(0.5);
    expect(total.bbox.x2 - total.bbox.x1).toBeGreaterThan(0.5);

    const events = (await c.files.jobEvents(r.fileId, r.jobId)).events;
    const ocr = events.find((e) => e.event_type === 'parse.ocr_page');
    expect(ocr?.payload).toMatchObject({ page_number: 1, chosen: expect.any(String), dpi: 0, warnings: [] });
    expect(events.some((e) => e.event_type === 'parse.warning')).toBe(false);
  });

  it('gives company, date, address and total with the offline model, each cited by text that contains it', async () => {
    const job = await c.waitForJob(
      fileId,
      (await c.files.extract(fileId, { schema: SCHEMA, schema_name: 'receipt' })).job.job_id,
    );
    expect(job.status).toBe('completed');
    const doc = (await c.artifacts.get(
      (job.result as { artifact_manifest_id: string }).artifact_manifest_id,
      'result_json',
    )) as any;
    expect(doc.jsonResult).toMatchObject({ company: 'SAM SAM TRADING CO', date: '2017-12-29', total: 14.1 });
    // The address is the block of lines under the name (OCR spelling as read).
    expect(doc.jsonResult.address).toMatch(/^67,JLN MEWAH 25\/63 .* 40400 SHAH ALAM\.$/);
    const segments = await c.files.segments(fileId);
    expect(doc.citations.map((x: any) => x.path).sort()).toEqual(['/address', '/company', '/date', '/total']);
    for (const cite of doc.citations)
      expect(citationVerifiable(valueAt(doc.jsonResult, cite.path), cite, segments)).toBe(true);
  });
});

describe('receipts whose letterhead, reading or print is harder', () => {
  const extract = async (fileId: string) => {
    const job = await c.waitForJob(
      fileId,
      (await c.files.extract(fileId, { schema: SCHEMA, schema_name: 'receipt' })).job.job_id,
    );
    expect(job.status).toBe('completed');
    const doc = (await c.artifacts.get(
      (job.result as { artifact_manifest_id: string }).artifact_manifest_id,
      'result_json',
    )) as any;
    const segments = await c.files.segments(fileId);
    for (const cite of doc.citations)
      expect(citationVerifiable(valueAt(doc.jsonResult, cite.path), cite, segments)).toBe(true);
    return doc.jsonResult;
  };
  const ocrEvent = async (r: { fileId: string; jobId: string }) =>
    (await c.files.jobEvents(r.fileId, r.jobId)).events.find((e) => e.event_type === 'parse.ocr_page')!.payload as any;

  it('reads the address that starts on the name line after the registration number, the date and the amount paid', async () => {
    // "GARDENIA BAKERIES (KL) SDN BHD (139386 X) Lot 3, Jalan Pelabur 23/1," / "40300 Shah Alam, Selangor."
    const r = await parse(corpus('c_scanned_images/sroie/349.jpg'));
    expect(r.done.status).toBe('completed');
    const out = await extract(r.fileId);
    expect(out.address).toBe('Lot 3, Jalan Pelabur 23/1, 40300 Shah Alam, Selangor.');
    expect(out).toMatchObject({ date: '2017-09-25', total: 36.55 });
  });

  it('reads a confidently read page once, and re-reads small text read with doubt larger', async () => {
    const sure = await ocrEvent(await parse(corpus('c_scanned_images/sroie/500.jpg')));
    expect(sure.tried).toHaveLength(1);
    expect(sure.tried[0].meanConf).toBeGreaterThanOrEqual(90);
    const doubt = await ocrEvent(await parse(corpus('c_scanned_images/sroie/056.jpg')));
    expect(doubt.tried.length).toBeGreaterThan(1);
    expect(doubt.tried[0].meanConf).toBeLessThan(90);
    expect(doubt.chosen).toMatch(/^upscaled/);
  });

  it('warns when faint print is read at low confidence instead of completing quietly', async () => {
    // Pale purple thermal print beside a magenta stripe: Tesseract reads a few words at ~50%.
    const r = await parse(corpus('c_scanned_images/sroie/506.jpg'));
    expect(r.done.status).toBe('completed');
    expect((r.done.result as any).warnings).toEqual([
      expect.objectContaining({ page_number: 1, code: 'ocr_low_confidence' }),
    ]);
    const events = (await c.files.jobEvents(r.fileId, r.jobId)).events;
    expect(events.find((e) => e.event_type === 'parse.warning')?.message).toMatch(/mean confidence of \d+%/);
  });
});

describe('an image with ink but no text', () => {
  it('completes with a warning on the job, and extraction on it says the parse holds no text', async () => {
    // Broad blobs, no letters.
    const file = path.join(tmp, 'blobs.png');
    await writeFile(
      file,
      grayPng(600, 400, (x, y) =>
        (x - 150) ** 2 + (y - 200) ** 2 < 90 ** 2 || (x >= 300 && x < 520 && y >= 80 && y < 320) ? 20 : 255,
      ),
    );
    const r = await parse(file);
    expect(r.done.status).toBe('completed');
    expect((r.done.result as any).warnings).toEqual([expect.objectContaining({ page_number: 1, code: 'ocr_no_text' })]);
    const events = (await c.files.jobEvents(r.fileId, r.jobId)).events;
    expect(events.find((e) => e.event_type === 'parse.warning')?.message).toMatch(/has ink .* but OCR read no text/);

    const job = await c.waitForJob(r.fileId, (await c.files.extract(r.fileId, { schema: SCHEMA })).job.job_id);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/holds no text/);
    expect(job.error).not.toMatch(/segment_ids/);
  });
});

/** A greyscale PNG (8-bit, no filter) from a pixel function. */
function grayPng(w: number, h: number, px: (x: number, y: number) => number): Buffer {
  const raw = Buffer.alloc((w + 1) * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw[y * (w + 1) + 1 + x] = px(x, y);
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body) >>> 0);
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
