import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DocfleetApiError, DocfleetClient, type GroundingDocument } from '@docfleet/sdk';
import { createTestDb, waitUntil, type TestDb } from '@docfleet/testing';
import { alive, root, startFleet, type Fleet } from '../fleet-process';
import { ARTIFACTS, ensureConsoleBuilt, launchBrowser, shot, watchProblems } from './browser';

/* eslint-disable @typescript-eslint/no-explicit-any */
// Functions passed to page.evaluate run in the browser: these names exist there, not in Node's types.
declare const window: any,
  document: any,
  sessionStorage: any,
  localStorage: any,
  MutationObserver: any,
  DataTransfer: any,
  DragEvent: any;
type HTMLProgressElement = { value: number; max: number };

// The web console against a real fleet (`pnpm start`) in real headless Chromium: every assertion
// goes through what a person sees and clicks, and every number is checked against the API.
const corpus = (p: string) => path.resolve(process.env.DOCFLEET_CORPUS ?? path.resolve(root, '../shared/corpus'), p);
const PAPER = corpus('b_tables/icdar2013/us-039.pdf'); // 3 pages, text layer, tables
const INVOICE = corpus('f_forms_invoices/invoice2data/AzureInterior.pdf');
const PASSWORD = 'console-test-password-1';

let t: TestDb;
let dataDir: string;
let fleet: Fleet;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
let problems: string[];
let api: DocfleetClient;
let org: { apiKey: string; orgId: string };
let adminEmail: string;

async function cli(args: string[], stdin?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'pnpm',
      ['--silent', 'docfleet', 'admin', ...args],
      { cwd: root, env: { ...process.env, DATABASE_URL: t.url } },
      (err, out) => (err ? reject(err) : resolve(out)),
    );
    child.stdin!.end(stdin ?? '');
  });
}

/** A text-layer PDF whose text is markup: the console must show it as text and run none of it. */
async function hostilePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const p = doc.addPage([612, 792]);
  const lines = [
    'Hostile markup report',
    '<script>window.__xss = "script"</script>',
    '<img src=x onerror="window.__xss = \'img\'">',
    'Quarterly zebra inventory: every line of this page is ordinary text that a parser must keep as',
    'text. The console renders markdown without raw HTML, so the tags above are shown, never run.',
    'A third paragraph makes sure the page has a usable text layer of well over one hundred and',
    'fifty characters, so the automatic backend reads the text layer instead of running OCR.',
  ];
  lines.forEach((l, i) => p.drawText(l, { x: 50, y: 720 - i * (i === 0 ? 30 : 24), size: i === 0 ? 20 : 11, font }));
  return doc.save();
}

async function signInWithKey(key: string) {
  await page.goto(`${fleet.baseUrl}/`);
  await page.getByRole('tab', { name: 'API key' }).click();
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Knowledge bases' }).waitFor();
}

async function signOut() {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
}

/** The error banner's status and code, as shown. */
async function shownError(): Promise<{ text: string; code: string | null }> {
  const banner = page
    .getByRole('alert')
    .filter({ has: page.locator('.error-code') })
    .first();
  await banner.waitFor();
  return { text: (await banner.innerText()).trim(), code: await banner.getAttribute('data-code') };
}

beforeAll(async () => {
  await ensureConsoleBuilt();
  await rm(ARTIFACTS, { recursive: true, force: true }); // only this run's screenshots
  t = await createTestDb();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-console-e2e-'));
  fleet = await startFleet({
    DATABASE_URL: t.url,
    DATA_DIR: dataDir,
    LOGIN_FREE_FAILURES: '2',
    LOGIN_BACKOFF_BASE_SECONDS: '30',
  });
  org = await fleet.createOrg(500);
  adminEmail = `admin-${randomUUID().slice(0, 8)}@example.com`;
  await cli(
    ['create-user', '--org', org.orgId, '--email', adminEmail, '--role', 'admin', '--password-stdin'],
    `${PASSWORD}\n`,
  );
  api = new DocfleetClient({ baseUrl: fleet.baseUrl, apiKey: org.apiKey });
  browser = await launchBrowser();
  ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await ctx.newPage();
  problems = watchProblems(page);
}, 180_000);

afterAll(async () => {
  await browser?.close().catch(() => undefined);
  fleet?.kill();
  await t?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

afterEach(() => {
  // No script error and no Content-Security-Policy refusal on any screen.
  expect(problems).toEqual([]);
});

describe('web console', () => {
  let kbId: string;
  let paperId: string;
  let hostileId: string;

  it('signs in with an API key kept in sessionStorage only, and manages knowledge bases', async () => {
    await page.goto(`${fleet.baseUrl}/`);
    await shot(page, '01-sign-in');
    await signInWithKey(org.apiKey);
    expect(page.url()).not.toContain(org.apiKey);
    const stored = await page.evaluate(() => ({
      session: JSON.stringify(sessionStorage),
      local: JSON.stringify(localStorage),
    }));
    expect(stored.session).toContain(org.apiKey);
    expect(stored.local).not.toContain(org.apiKey);

    await page.getByLabel('Name', { exact: true }).fill('Console papers');
    await page.getByLabel('Description').fill('made by the console test');
    await page.getByRole('button', { name: 'Create' }).click();
    const card = page.locator('.card', { hasText: 'Console papers' });
    await card.waitFor();
    kbId = (await card.getAttribute('data-kb-id'))!;
    expect((await api.knowledgeBases.list()).knowledge_bases.map((k) => k.name)).toContain('Console papers');

    // a clash is the API's 409, shown with its code
    await page.getByLabel('Name', { exact: true }).fill('console PAPERS');
    await page.getByRole('button', { name: 'Create' }).click();
    const e409 = await shownError();
    expect(e409.code).toBe('duplicate_knowledge_base_name');
    expect(e409.text).toContain('409 duplicate_knowledge_base_name');
    await page.getByRole('button', { name: 'Dismiss error' }).click();

    // rename, and a second one to delete with the permanent-delete confirmation
    await page.getByLabel('Name', { exact: true }).fill('Scratch');
    await page.getByRole('button', { name: 'Create' }).click();
    const scratchCard = page.locator('.card', { hasText: 'Scratch' });
    await scratchCard.waitFor();
    const scratch = page.locator(`.card[data-kb-id="${await scratchCard.getAttribute('data-kb-id')}"]`);
    await scratch.getByRole('button', { name: 'Rename' }).click();
    await scratch.getByLabel('New name').fill('Scratch renamed');
    await scratch.getByRole('button', { name: 'Save' }).click();
    const renamed = page.locator('.card', { hasText: 'Scratch renamed' });
    await renamed.waitFor();
    await shot(page, '02-knowledge-bases');
    await renamed.getByRole('button', { name: 'Delete…' }).click();
    const del = renamed.getByRole('button', { name: 'Delete permanently' });
    expect(await del.isDisabled()).toBe(true); // until the name is typed
    await renamed.getByLabel('Name', { exact: true }).fill('Scratch renamed');
    await del.click();
    await renamed.waitFor({ state: 'detached' });
    expect((await api.knowledgeBases.list()).knowledge_bases.map((k) => k.name).sort()).toEqual(['Console papers']);
  }, 60_000);

  it('uploads many files (drag and drop and the picker) with progress, and shows each parse live until it finishes', async () => {
    await page.goto(`${fleet.baseUrl}/#/kb/${kbId}`);
    await page.getByRole('heading', { name: 'Console papers' }).waitFor();
    // Record every parse state the table shows, to prove progress is live (not only the end state).
    await page.evaluate(() => {
      const seen: string[] = ((window as unknown as { __states: string[] }).__states = []);
      new MutationObserver(() => {
        for (const row of document.querySelectorAll('tr[data-file-id]')) {
          const pct = row.querySelector('.percent')?.textContent?.trim() ?? '';
          seen.push(`${row.getAttribute('data-parse-status')}${pct}`);
        }
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    const hostile = Buffer.from(await hostilePdf()).toString('base64');
    await page.evaluate(
      ({ b64 }) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'hostile.pdf', { type: 'application/pdf' }));
        const zone = document.querySelector('[data-testid="dropzone"]')!;
        zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      },
      { b64: hostile },
    );
    await page.locator('input[type="file"]').setInputFiles([PAPER]);
    await page.locator('.uploads li[data-upload-state="done"]').nth(1).waitFor({ timeout: 60_000 });
    const bars = await page
      .locator('.uploads progress')
      .evaluateAll((ps) => ps.map((p) => [(p as HTMLProgressElement).value, (p as HTMLProgressElement).max]));
    expect(bars).toHaveLength(2);
    for (const [v, max] of bars) expect(v).toBe(max); // each file's bar reached its own size

    await page.locator('tr[data-file-id]').nth(1).waitFor();
    await shot(page, '03-knowledge-base-parsing');
    const done = page.locator('tr[data-parse-status="completed"]');
    await page.waitForFunction(
      () => document.querySelectorAll('tr[data-parse-status="completed"]').length === 2,
      undefined,
      { timeout: 180_000, polling: 250 },
    );
    expect(await done.count()).toBe(2);
    const states = await page.evaluate(() => (window as unknown as { __states: string[] }).__states);
    expect(states.some((s) => /^(queued|running)/.test(s))).toBe(true);
    const index = await api.knowledgeBases.index(kbId);
    paperId = index.files.find((f) => f.filename === 'us-039.pdf')!.file_id;
    hostileId = index.files.find((f) => f.filename === 'hostile.pdf')!.file_id;
    for (const f of index.files) expect(f.latest_parse_job?.status).toBe('completed');
    await shot(page, '04-knowledge-base-parsed');
  }, 240_000);

  it('draws every grounding element of a page as a box at its place on the image, linked both ways to the markdown', async () => {
    await page.goto(`${fleet.baseUrl}/#/kb/${kbId}`);
    await page.locator(`tr[data-file-id="${paperId}"]`).getByRole('link', { name: 'View' }).click();
    const overlay = page.getByTestId('page-overlay');
    await overlay.waitFor();
    const manifest = (await api.files.artefacts(paperId)).artifacts.find((a) => a.artifact_type === 'parse')!;
    const grounding: GroundingDocument = await api.artifacts.get(manifest.id, 'grounding_json');

    const checkPage = async (n: number) => {
      await page.locator(`[data-testid="page-overlay"][data-page="${n}"]`).waitFor();
      const gp = grounding.pages.find((p) => p.page_number === n)!;
      expect(gp.elements.length).toBeGreaterThan(0);
      expect(await overlay.locator('[data-element-id]').count()).toBe(gp.elements.length);
      const img = (await page.locator('.page-image').boundingBox())!;
      for (const el of [gp.elements[0]!, gp.elements[Math.floor(gp.elements.length / 2)]!, gp.elements.at(-1)!]) {
        const b = (await overlay.locator(`[data-element-id="${el.id}"]`).boundingBox())!;
        expect(Math.abs(b.x - (img.x + el.bbox.x1 * img.width))).toBeLessThan(1.5);
        expect(Math.abs(b.y - (img.y + el.bbox.y1 * img.height))).toBeLessThan(1.5);
        expect(Math.abs(b.width - (el.bbox.x2 - el.bbox.x1) * img.width)).toBeLessThan(1.5);
        expect(Math.abs(b.height - (el.bbox.y2 - el.bbox.y1) * img.height)).toBeLessThan(1.5);
      }
      // table cells are drawn inside the tables that have them, and nowhere else
      const cells = gp.elements.reduce((n, e) => n + (e.cells?.length ?? 0), 0);
      if (cells === 0) expect(await overlay.locator('.cell').count()).toBe(0);
      else expect(await overlay.locator('.cell').count()).toBeGreaterThan(0);
      return gp;
    };

    const p1 = await checkPage(1);
    await shot(page, '05-viewer');
    // box → markdown
    const target = p1.elements.find((e) => e.markdown_anchor.trim()) ?? p1.elements[0]!;
    await overlay.locator(`[data-element-id="${target.id}"]`).click();
    await page.locator(`.md-block.selected[data-md-element-id="${target.id}"]`).waitFor();
    // hover shows the element's text
    await overlay.locator(`[data-element-id="${target.id}"]`).hover();
    expect(await page.getByRole('tooltip').innerText()).toContain(target.content.slice(0, 20).trim());
    // markdown → box
    const other = p1.elements.filter((e) => e.id !== target.id).at(-1)!;
    await page.locator(`[data-md-element-id="${other.id}"]`).click();
    await overlay.locator(`.box.selected[data-element-id="${other.id}"]`).waitFor();
    // keyboard paging, then zoom: boxes follow the image
    await page.locator('.stage-scroll').focus();
    await page.keyboard.press('ArrowRight');
    await checkPage(2);
    await page.getByLabel('Zoom').selectOption('1.5');
    await checkPage(2);
    await page.keyboard.press('ArrowLeft');
    await checkPage(1);
    // a layer toggle hides that layer's boxes
    const texts = p1.elements.filter((e) => ['text', 'caption', 'footnote', 'formula', 'code'].includes(e.type)).length;
    await page.getByLabel('Text', { exact: true }).uncheck();
    expect(await overlay.locator('[data-element-id]').count()).toBe(p1.elements.length - texts);
    await page.getByLabel('Text', { exact: true }).check();
    // thumbnails page too
    await page.getByRole('button', { name: 'Page 3', exact: true }).click();
    await checkPage(3);
  }, 90_000);

  it('shows PDF text that is markup as text and runs none of it', async () => {
    await page.goto(`${fleet.baseUrl}/#/kb/${kbId}/file/${hostileId}`);
    const panel = page.getByTestId('markdown-panel');
    await page.getByRole('heading', { name: 'hostile.pdf' }).waitFor();
    await page.getByTestId('page-overlay').waitFor();
    await panel.waitFor();
    const text = await panel.innerText();
    expect(text).toContain('<script>window.__xss = "script"</script>');
    expect(text).toContain('<img src=x onerror=');
    expect(await panel.locator('script, img[onerror], iframe, object').count()).toBe(0);
    // hovering the hostile element must not inject either
    await page.locator('[data-element-id]').nth(1).hover();
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __xss?: string }).__xss)).toBeUndefined();
    await shot(page, '06-viewer-hostile-text');
  }, 60_000);

  it('searches, and a hit opens the viewer at its page with its box highlighted', async () => {
    await page.goto(`${fleet.baseUrl}/#/kb/${kbId}/search`);
    await page.getByLabel('Query').fill('zebra inventory');
    await page.getByRole('button', { name: 'Search' }).click();
    const hit = page.locator('.hit').first();
    await hit.waitFor({ timeout: 30_000 });
    const segmentId = (await hit.getAttribute('data-segment-id'))!;
    await shot(page, '07-search');
    // the API's filters go with the query: no spreadsheet holds the words
    await page.getByLabel('Source').selectOption('spreadsheet');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('0 hits').waitFor();
    expect(page.url()).toContain('source=spreadsheet');
    await page.getByLabel('Source').selectOption('pdf');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText(/^[1-9]\d* hits?$/).waitFor();
    await hit.locator('a').click();
    await page.locator(`[data-testid="page-overlay"] .box.selected[data-element-id="${segmentId}"]`).waitFor();
    await page.getByTestId('hit-region').waitFor();
    await shot(page, '08-search-hit-in-viewer');
  }, 60_000);

  it('shows a spreadsheet as its sheet grid with every segment drawn over its A1 range', async () => {
    const up = await api.files.upload(corpus('d_spreadsheets/docling/test-01.xlsx'), {
      knowledgeBaseId: kbId,
      autoParse: true,
    });
    expect(
      (
        await api.waitForJob(up.file.id, up.parse_job!.job_id, {
          timeoutMs: 120_000,
          initialIntervalMs: 500,
          maxIntervalMs: 1000,
        })
      ).status,
    ).toBe('completed');
    const manifest = (await api.files.artefacts(up.file.id)).artifacts.find((a) => a.artifact_type === 'parse')!;
    const g: GroundingDocument = await api.artifacts.get(manifest.id, 'grounding_json');
    await page.goto(`${fleet.baseUrl}/#/kb/${kbId}/file/${up.file.id}`);
    const sheet = g.pages[0]!;
    const overlay = page.locator(`.sheet-grid .page-overlay[data-page="${sheet.page_number}"]`);
    await overlay.waitFor();
    expect(await overlay.locator('[data-element-id]').count()).toBe(sheet.elements.length);
    const ranges = await page
      .getByRole('table', { name: 'Segments of this sheet' })
      .locator('tbody tr td:first-child')
      .allInnerTexts();
    expect(ranges).toEqual(sheet.elements.map((e) => e.sheet?.rangeA1 ?? ''));
    expect(await page.getByRole('tablist', { name: 'Sheets' }).getByRole('tab').count()).toBe(g.pages.length);
    await shot(page, '08b-spreadsheet');
  }, 180_000);

  it('runs an extraction and links each value to its citation box on its page', async () => {
    const up = await api.files.upload(INVOICE, { knowledgeBaseId: kbId, autoParse: true });
    const job = await api.waitForJob(up.file.id, up.parse_job!.job_id, {
      timeoutMs: 180_000,
      initialIntervalMs: 500,
      maxIntervalMs: 1000,
    });
    expect(job.status).toBe('completed');
    await page.goto(`${fleet.baseUrl}/#/kb/${kbId}/file/${up.file.id}`);
    await page.getByTestId('page-overlay').waitFor();
    await page.getByRole('link', { name: 'Extract' }).click();
    const fillFields = async () => {
      await page.getByLabel('Field 1 name').fill('total amount');
      await page.getByLabel('Field 1 type').selectOption('number');
      await page.getByLabel('Field 1 description').fill('the amount due');
      await page.getByRole('button', { name: 'Add field' }).click();
      await page.getByLabel('Field 2 name').fill('invoice number');
    };
    await fillFields();
    await page.getByRole('button', { name: /Run extraction/ }).click();
    const row = page.locator('tr[data-field-path="/total_amount"]');
    await row.waitFor({ timeout: 120_000 });
    const value = (await row.locator('td.value').innerText()).trim();
    expect(Number(value)).toBeGreaterThan(0);
    await shot(page, '09-extraction');
    const cite = row.locator('a.citation').first();
    const elementId = (await cite.getAttribute('data-citation-element'))!;
    await cite.click();
    const box = page.locator(`[data-testid="page-overlay"] .box.selected[data-element-id="${elementId}"]`);
    await box.waitFor();
    // the cited segment (whose first element is the box) holds the value the table showed
    const seg = (await api.files.segments(up.file.id)).find((x) => x.id === elementId)!;
    expect(seg.markdown.replace(/[^0-9.]/g, '')).toContain(value.replace(/\.0+$/, ''));
    await shot(page, '10-extraction-citation');

    // the same fields as a JSON Schema, on the file-job path: citations come resolved to their boxes
    await page.goBack();
    await fillFields();
    await page.getByRole('tab', { name: 'JSON Schema' }).click();
    const schemaText = await page.getByLabel(/JSON Schema \(Draft 2020-12\)/).inputValue();
    expect(JSON.parse(schemaText)).toMatchObject({
      type: 'object',
      properties: { total_amount: { type: ['number', 'null'] }, invoice_number: {} },
    });
    await page.getByRole('button', { name: /Run extraction job/ }).click();
    const jrow = page.locator('tr[data-field-path="/total_amount"]');
    await jrow.waitFor({ timeout: 120_000 });
    expect(Number((await jrow.locator('td.value').innerText()).trim())).toBe(Number(value));
    const jcite = jrow.locator('a.citation').first();
    const jel = (await jcite.getAttribute('data-citation-element'))!;
    await jcite.click();
    await page.locator(`[data-testid="page-overlay"] .box.selected[data-element-id="${jel}"]`).waitFor();
    await page.getByTestId('hit-region').waitFor();
  }, 240_000);

  it('splits a document into records and downloads one as a PDF; classifies it; proposes an edit without applying it', async () => {
    await page.goto(`${fleet.baseUrl}/#/kb/${kbId}/file/${paperId}/split`);
    await page.getByRole('button', { name: /^Split/ }).click();
    const record = page.locator('tr[data-record-id]').first();
    await record.waitFor({ timeout: 180_000 });
    const pages = (await record.locator('td').nth(2).innerText()).split('–').map(Number);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      record.getByRole('button', { name: 'Download PDF' }).click(),
    ]);
    const pdf = await PDFDocument.load(await readFile((await download.path())!));
    expect(pdf.getPageCount()).toBe(pages[1]! - pages[0]! + 1);
    await shot(page, '11-split');

    await page.getByRole('tab', { name: 'Classify' }).click();
    await page.getByLabel('Classes (comma separated)').fill('report, invoice, letter');
    await page.getByRole('button', { name: /^Classify/ }).click();
    const cls = (await page.getByTestId('document-class').innerText({ timeout: 120_000 })).trim();
    expect(['report', 'invoice', 'letter']).toContain(cls);
    expect(await page.getByRole('table', { name: 'Page classes' }).locator('tbody tr').count()).toBe(3);
    await shot(page, '12-classify');

    const versionBefore = (await api.files.get(paperId)).file.current_version.id;
    await page.getByRole('tab', { name: 'Edit' }).click();
    await page.getByLabel('What should change').fill('Replace "mercury" with "Hg"');
    await page.getByRole('button', { name: /Propose an edit/ }).click();
    await page.getByRole('heading', { name: 'Proposal' }).waitFor({ timeout: 120_000 });
    const diff = await page.getByTestId('diff').innerText();
    expect(diff).toMatch(/^-.*mercury/im);
    expect(diff).toMatch(/^\+.*Hg/m);
    expect((await api.files.get(paperId)).file.current_version.id).toBe(versionBefore); // never applied
    await shot(page, '13-edit-proposal');
  }, 400_000);

  it('moves a file into a new folder, trashes and restores it, and re-parses another', async () => {
    await page.goto(`${fleet.baseUrl}/#/kb/${kbId}`);
    const row = page.locator(`tr[data-file-id="${paperId}"]`);
    await row.waitFor();
    await page.getByLabel('New folder').fill('Reports');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await page
      .locator('select[name="folder"]')
      .locator('option', { hasText: 'Reports' })
      .waitFor({ state: 'attached' });
    await row.getByLabel('Move us-039.pdf to folder').selectOption({ label: 'Reports' });
    await waitUntil(
      'the moved file to show a folder in the API',
      async () => (await api.files.get(paperId)).file.folder_id !== null,
      {
        timeoutMs: 10_000,
        intervalMs: 200,
      },
    );
    await page.locator('select[name="folder"]').selectOption({ label: 'Reports' });
    expect(await page.locator('tr[data-file-id]').count()).toBe(1);
    await page.locator('select[name="folder"]').selectOption('all');

    await row.getByRole('button', { name: 'Trash' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await api.files.get(paperId).catch((e: DocfleetApiError) => e)) as DocfleetApiError).toMatchObject({
      status: 404,
    });
    await page.getByLabel('Show trash').check();
    const trashed = page.locator(`li[data-file-id="${paperId}"]`);
    await trashed.getByRole('button', { name: 'Restore' }).click();
    await row.waitFor();
    expect((await api.files.get(paperId)).file.deleted_at).toBeNull();
    await page.getByLabel('Show trash').uncheck();

    // re-parse: nothing changed, so the job completes at stage `reused`
    const hostileRow = page.locator(`tr[data-file-id="${hostileId}"]`);
    const before = (await api.files.jobs(hostileId)).jobs.length;
    await hostileRow.getByRole('button', { name: 'Re-parse' }).click();
    await waitUntil(
      'the new parse job in the API',
      async () => (await api.files.jobs(hostileId)).jobs.length === before + 1,
      {
        timeoutMs: 10_000,
        intervalMs: 200,
      },
    );
    await page.locator(`tr[data-file-id="${hostileId}"][data-parse-status="completed"]`).waitFor({ timeout: 60_000 });
    await page.waitForFunction(
      (id) => document.querySelector(`tr[data-file-id="${id}"] .parse-cell`)?.textContent?.includes('reused'),
      hostileId,
      { timeout: 60_000 },
    );
    await shot(page, '14-folders-trash-reparse');
  }, 120_000);

  it("shows the API's errors with their code: 404 and 403", async () => {
    const missing = randomUUID();
    const apiErr = await api.knowledgeBases.index(missing).catch((e: DocfleetApiError) => e);
    expect(apiErr).toBeInstanceOf(DocfleetApiError);
    await page.goto(`${fleet.baseUrl}/#/kb/${missing}`);
    const e404 = await shownError();
    expect(e404.code).toBe((apiErr as DocfleetApiError).code);
    expect(e404.text).toContain(`404 ${(apiErr as DocfleetApiError).code}`);
    await shot(page, '14-error-404');

    // an API key may not manage keys: 403 permission_required, shown on the keys screen
    await page.goto(`${fleet.baseUrl}/#/keys`);
    const e403 = await shownError();
    expect(e403.code).toBe('permission_required');
    expect(e403.text).toContain('403 permission_required');
  }, 60_000);

  it('shows 402 insufficient_credits when a parse cannot be paid for', async () => {
    await signOut();
    const broke = await fleet.createOrg(0);
    await signInWithKey(broke.apiKey);
    const brokeApi = new DocfleetClient({ baseUrl: fleet.baseUrl, apiKey: broke.apiKey });
    const kb = (await brokeApi.knowledgeBases.create({ name: 'No credits' })).knowledge_base.id;
    await page.goto(`${fleet.baseUrl}/#/kb/${kb}`);
    await page.getByLabel('Parse after upload').uncheck();
    await page.locator('input[type="file"]').setInputFiles([PAPER]);
    const row = page.locator('tr[data-file-id]');
    await row.waitFor();
    await row.getByRole('button', { name: 'Parse', exact: true }).click();
    const e402 = await shownError();
    expect(e402.code).toBe('insufficient_credits');
    expect(e402.text).toContain('402 insufficient_credits');
    await shot(page, '15-error-402');
    await signOut();
  }, 60_000);

  it('signs in with email and password; too many wrong passwords show 429 with the retry time', async () => {
    await page.getByRole('tab', { name: 'Email and password' }).click();
    await page.getByLabel('Email').fill(`nobody-${randomUUID().slice(0, 6)}@example.com`);
    await page.getByLabel('Password').fill('wrong password');
    let last = { text: '', code: null as string | null };
    for (let i = 0; i < 4 && last.code !== 'rate_limited'; i++) {
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      last = await shownError();
    }
    expect(last.code).toBe('rate_limited');
    expect(last.text).toMatch(/429 rate_limited[\s\S]*Retry in \d+ s/);
    await shot(page, '16-error-429');

    await page.getByLabel('Email').fill(adminEmail);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Knowledge bases' }).waitFor();
    expect(await page.locator('.who').innerText()).toContain(`${adminEmail} (admin)`);
  }, 60_000);

  it('lets an admin create an API key (secret shown once), use it, and revoke it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('made in the console');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('new-secret').innerText()).trim();
    const fresh = new DocfleetClient({ baseUrl: fleet.baseUrl, apiKey: secret });
    expect((await fresh.billing.credits()).credits.balance_credits).toBeGreaterThan(0);
    await shot(page, '17-api-keys');
    const row = page.locator('tr', { hasText: 'made in the console' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByText(/^revoked/).waitFor();
    await new Promise((r) => setTimeout(r, 6_000)); // API_KEY_CACHE_TTL_SECONDS (5) in the gateway
    await expect(fresh.billing.credits()).rejects.toMatchObject({ status: 401 });
  }, 60_000);

  it('shows the balance, the ledger and a daily usage chart of what the parses cost', async () => {
    await page.getByRole('link', { name: 'Credits' }).click();
    const credits = (await api.billing.credits()).credits;
    await page.getByTestId('balance').waitFor();
    expect(Number(await page.getByTestId('balance').innerText())).toBe(credits.balance_credits);
    const today = new Date().toISOString().slice(0, 10);
    const bar = page.locator(`[data-testid="usage-chart"] .bar[data-day="${today}"]`);
    const days = (await api.billing.ledger({ groupBy: 'day' })).entries as Array<{
      day: string;
      net_used_credits: number;
    }>;
    const used = days.find((d) => d.day.slice(0, 10) === today)!.net_used_credits;
    expect(used).toBeGreaterThan(0); // the two parses
    expect(Number(await bar.getAttribute('data-used'))).toBe(used);
    expect(Number(await bar.getAttribute('height'))).toBeGreaterThan(0);
    const ledgerRows = page.getByRole('table', { name: 'Ledger entries' }).locator('tbody tr');
    await ledgerRows.first().waitFor({ timeout: 15_000 }); // the ledger loads beside the chart, not before it
    expect(await ledgerRows.count()).toBeGreaterThan(0);
    await shot(page, '18-credits');
  }, 60_000);

  it('is usable on a phone-sized screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${fleet.baseUrl}/#/kb/${kbId}/file/${paperId}`);
    await page.getByTestId('page-overlay').waitFor();
    const img = (await page.locator('.page-image').boundingBox())!;
    expect(img.width).toBeGreaterThan(200);
    expect(img.width).toBeLessThanOrEqual(390);
    await shot(page, '19-viewer-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 60_000);

  it('shows a parse waiting while no parse worker runs, and its progress once one does', async () => {
    await page.goto(`${fleet.baseUrl}/#/kb/${kbId}`); // signed in as the admin by now
    await page.locator('tr[data-file-id]').first().waitFor();
    const workers = fleet.pidsOf('parse-worker').filter(alive);
    expect(workers.length).toBeGreaterThan(0);
    for (const pid of workers) process.kill(pid, 'SIGSTOP'); // down, as far as the queue can tell
    try {
      await page
        .locator('input[type="file"]')
        .setInputFiles([
          { name: 'while-down.pdf', mimeType: 'application/pdf', buffer: Buffer.from(await hostilePdf()) },
        ]);
      const row = page.locator('tr', { hasText: 'while-down.pdf' });
      await row.waitFor();
      await page.waitForTimeout(4000);
      expect(await row.getAttribute('data-parse-status')).toBe('queued');
      await row.getByText('waiting for a parse worker').waitFor();
      await shot(page, '20-worker-down');
    } finally {
      for (const pid of workers) process.kill(pid, 'SIGCONT');
    }
    await page
      .locator('tr[data-parse-status="completed"]', { hasText: 'while-down.pdf' })
      .waitFor({ timeout: 120_000 });
  }, 180_000);

  it('signs out: the session is gone from the tab', async () => {
    await signOut();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });
});
