// Clean failures: each bad input fails its own job with a readable error, a job.failed event with
// the traceback, its reservation `failed` with page debits reversed, no artifacts left behind, and
// the same worker goes on to parse a good file.
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { encryptedPdf, stackedScanPng } from '../../../libs/pdf/test/helpers/fixtures';
import { encryptedWorkbookStreams, compoundFileBuffer } from '../../../libs/sheets/test/helpers/cfb-writer';
import { rawXlsxEntries } from '../../../libs/sheets/test/helpers/xlsx-raw';
import { deflatedZeros, zipBuffer } from '../../../libs/sheets/test/helpers/zip-writer';
import { waitUntil } from '@docfleet/testing';
import { NDA5 } from './fixtures';
import { corpus, creditInvariants, startStack, type Stack } from './stack';

let s: Stack;
let key: string;
let orgId: string;
let kbId: string;
beforeAll(async () => {
  // MAX_PAGES 4 on both sides: the 5-page NDA is over the limit.
  s = await startStack({ MAX_PAGES: '4' }, { maxPages: 4 });
  ({ key, orgId } = await s.gw.createOrg({ credits: 100 }));
  kbId = (await s.gw.createKnowledgeBase(key, 'Failures')).id;
});
afterAll(() => s.close());

const parseUpload = (name: string, data: Buffer, options: Record<string, unknown> = {}) =>
  s.parseUpload(key, kbId, { name, data }, options);

async function expectCleanFailure(
  fileId: string,
  job: { job_id: string; status: string; error: string | null },
  error: RegExp,
) {
  expect(job.status).toBe('failed');
  expect(job.error).toMatch(error);
  const res = await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: job.job_id } });
  expect(res.status).toBe('failed');
  const net = await s.gw.db.ledgerEntry.aggregate({ where: { job_id: job.job_id }, _sum: { amount_credits: true } });
  expect(net._sum.amount_credits ?? 0).toBe(0);
  const events = (await s.gw.req('GET', `/v1/files/${fileId}/jobs/${job.job_id}/events`, { key })).body.events;
  const failed = events.at(-1);
  expect(failed).toMatchObject({
    event_type: 'job.failed',
    message: job.error,
    payload: { traceback: expect.any(String), code: expect.any(String) },
  });
  expect(failed.payload.traceback.length).toBeLessThanOrEqual(4000);
  expect(await s.gw.db.artifactManifest.count({ where: { job_id: job.job_id } })).toBe(0);
  // The worker removes the bundle right after the terminal write commits, so a caller polling the
  // job can see `failed` a moment before the files are gone (seen under load): allow it that moment.
  const artifacts = () => s.gw.deps.storage.list(`kb/${kbId}/files/${fileId}/artifacts`);
  let left: Array<{ name: string }> = [];
  await waitUntil(`the failed job's artifacts removed`, async () => (left = await artifacts()).length === 0, {
    timeoutMs: 10_000,
    intervalMs: 100,
    detail: () => `still there: ${left.map((e) => e.name).join(', ')}`,
  });
  const seg = await s.gw.req('GET', `/v1/files/${fileId}/segments`, { key });
  expect([seg.status, seg.body.code]).toEqual([409, 'file_must_be_parsed']);
}

it('corrupt and encrypted PDFs', async () => {
  const corrupt = await parseUpload(
    'broken.pdf',
    Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog'), Buffer.alloc(2000, 0x41)]),
  );
  await expectCleanFailure(corrupt.fileId, corrupt.job, /PDF .*(damaged|could not be processed)/);
  const enc = await parseUpload('locked.pdf', Buffer.from(await encryptedPdf()));
  await expectCleanFailure(enc.fileId, enc.job, /password-protected/);
});

it('a file that is not what its name claims: the parser finished without expected artifacts', async () => {
  // A zip that is no workbook (a .docx-like package) named .xlsx.
  const docx = zipBuffer([
    { name: '[Content_Types].xml', data: Buffer.from('<Types/>') },
    { name: 'word/document.xml', data: Buffer.from('<w:document/>') },
  ]);
  const r = await parseUpload('report.xlsx', docx);
  await expectCleanFailure(
    r.fileId,
    r.job,
    /^The parser finished without expected artifacts: .*not what its extension claims/,
  );
});

it('a zip bomb and a password-protected workbook', async () => {
  const bomb = await deflatedZeros(24 * 1024 * 1024);
  const xlsx = zipBuffer(
    rawXlsxEntries([{ name: 'Sheet1', part: '', entry: { deflated: bomb, declaredSize: 24 * 1024 * 1024 } }]),
  );
  const b = await parseUpload('bomb.xlsx', xlsx);
  await expectCleanFailure(b.fileId, b.job, /^The workbook was refused as a likely zip bomb: .*would inflate/);
  const locked = await parseUpload('locked.xlsx', compoundFileBuffer(encryptedWorkbookStreams()));
  await expectCleanFailure(locked.fileId, locked.job, /password-protected/);
});

it('a page over its time limit, and a document over MAX_PAGES (1 credit held, nothing charged)', async () => {
  // Four invoice scans on one page: seconds of OCR on any machine (one alone was read within the
  // second on a fast one, Tesseract having started while the upload was hashed).
  const slow = await parseUpload(
    'scan.png',
    await stackedScanPng(corpus('c_scanned_images/invoice2data/AmazonWebServices.png'), 4),
    { timeout_seconds: 1 },
  );
  await expectCleanFailure(
    slow.fileId,
    slow.job,
    /^Page 1 took too long \((page 1 took longer than 1s|OCR exceeded the 1s page time limit)\)\. Raise timeout_seconds/,
  );
  const big = await parseUpload('big.pdf', await readFile(NDA5));
  expect(big.reserved).toBe(1);
  await expectCleanFailure(big.fileId, big.job, /5 pages; the limit is 4/);
});

it('the same worker then parses a good file, and the ledger still adds up', async () => {
  const good = await parseUpload(
    `ok-${randomUUID().slice(0, 4)}.pdf`,
    await readFile(corpus('f_forms_invoices/invoice2data/AzureInterior.pdf')),
  );
  expect(good.job).toMatchObject({ status: 'completed', result: { credits_charged: 1 } });
  const inv = await creditInvariants(s.gw, orgId);
  expect(inv).toEqual({ balance: 99, ledgerSum: 99, openReservations: 0 });
  const failedJobs = await s.gw.db.job.findMany({
    where: { org_id: orgId, status: 'failed' },
    select: { file_id: true, error: true },
  });
  if (process.env.SHOW_ERRORS) console.log(failedJobs.map((j) => j.error).join('\n'));
  expect(failedJobs).toHaveLength(7);
  const cleared = await s.gw.req('DELETE', `/v1/files/${failedJobs[0]!.file_id}/jobs/failed`, { key });
  expect(cleared.body).toMatchObject({ cleaned: 1, cleaned_kinds: ['parse'] });
});
