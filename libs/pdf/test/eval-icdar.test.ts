// The ICDAR-2013 evaluation through its real entry (evaluateCorpus over a manifest), on a corpus
// folder made of two documents read in place: eu-015 (pages with /Rotate 90, whose structure file
// states cell boxes in the unrotated frame) and us-005 (an upright page).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { evaluateCorpus } from '../eval/corpus-eval';
import { libraryParse } from '../eval/library-parse';
import { CORPUS } from './helpers/fixtures';

const DOCS = ['eu-015', 'us-005'];

describe('ICDAR-2013 evaluation', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'icdar-eval-'));
    const manifest = fs.readFileSync(path.join(CORPUS, 'MANIFEST.tsv'), 'utf8').split('\n');
    const rows = manifest.filter((l) => DOCS.some((d) => l.startsWith(`b_tables/icdar2013/${d}.pdf\t`)));
    expect(rows).toHaveLength(DOCS.length);
    fs.writeFileSync(path.join(dir, 'MANIFEST.tsv'), [manifest[0], ...rows].join('\n') + '\n');
    fs.mkdirSync(path.join(dir, 'b_tables/icdar2013'), { recursive: true });
    for (const d of DOCS)
      for (const ext of ['.pdf', '-str.xml', '-reg.xml'])
        fs.symlinkSync(path.join(CORPUS, 'b_tables/icdar2013', d + ext), path.join(dir, 'b_tables/icdar2013', d + ext));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('matches a table whose ground-truth boxes lie outside its page by content, and others by position', async () => {
    const rows = await evaluateCorpus(dir, libraryParse);
    const cells = (doc: string) => rows.filter((r) => r.doc.startsWith(doc) && r.metric === 'cell_accuracy');
    // Both sideways tables of page 1 are found (region IoU ~0.95); each must be scored against
    // itself, not against its neighbour or as missing.
    const eu = cells('b_tables/icdar2013/eu-015.pdf#t');
    expect(eu).toHaveLength(5);
    for (const r of eu) expect(r.value).toBeGreaterThan(0.95);
    const us = cells('b_tables/icdar2013/us-005.pdf#t');
    expect(us.length).toBeGreaterThan(0);
    for (const r of us) expect(r.detail).not.toBe('no table on page');
  }, 120_000);

  it('two framed line charts side by side are figures: their tick labels and legends make no table', async () => {
    // us-023 page 3: the charts' curves fill only the middle of their plot frames, and the tick
    // labels of both charts stand level across the page; page 2 holds the document's one table.
    const res = await libraryParse(path.join(CORPUS, 'b_tables/icdar2013/us-023.pdf'), 'pdf', 'text');
    const tablesOn = (n: number) => res.grounding.pages[n - 1]!.elements.filter((e) => e.type === 'table');
    expect(tablesOn(3)).toEqual([]);
    expect(res.grounding.pages[2]!.elements.filter((e) => e.type === 'figure').length).toBeGreaterThanOrEqual(2);
    expect(tablesOn(2)).toHaveLength(1);
  }, 120_000);
});
