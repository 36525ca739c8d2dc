import {
  buildSplitRequest,
  buildSplitRulesRequest,
  readModelConfig,
  resolveModel,
  type SplitOutput,
  type SplitRulesOutput,
} from '../src';
import { localSplit } from '../src/local/split/split';
import { pageMarker } from '../src/local/split/page-features';
import { evidenceOf } from './helpers/evidence';

const para = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `${topic} clause ${i}: the ${topic} provisions apply to every ${topic} matter described here.`,
  ).join(' ');

// Three documents: a 2-page report with "Page x of 2", a 1-page invoice, a 3-page letter with a running header.
const pages = [
  ['ANNUAL SAFETY REPORT', para('safety inspection', 6), 'Page 1 of 2'],
  [para('safety inspection', 8), 'Page 2 of 2'],
  [
    'INVOICE No. 5512',
    'Invoice date: 02/03/2023',
    '| Item | Qty | Amount |\n|---|---|---|\n| Gloves | 4 | $ 20.00 |',
    'Total due: $ 20.00',
  ],
  [
    'Harbour Shipping Co. — Letter',
    'Dear customer, we write about your container booking and the harbour schedule for the coming weeks',
    para('container booking', 5),
  ],
  ['Harbour Shipping Co. — Letter', para('container booking', 7)],
  ['Harbour Shipping Co. — Letter', para('container booking', 4), 'Yours sincerely'],
];

describe('docfleet-local split', () => {
  it('reads page-number markers', () => {
    expect(pageMarker(['x', 'Page 2 of 5'])).toEqual({ n: 2, total: 5, bare: false });
    expect(pageMarker(['Seite 1', 'text'])).toEqual({ n: 1, total: undefined, bare: false });
    expect(pageMarker(['text', '- 3 -'])).toEqual({ n: 3, total: undefined, bare: false });
    expect(pageMarker(['text', '1/3'])).toEqual({ n: 1, total: 3, bare: false });
    expect(pageMarker(['text', '7'])).toEqual({ n: 7, total: undefined, bare: true });
  });

  it('finds document boundaries with reasons and covers every page once', () => {
    const out = localSplit(evidenceOf(pages));
    expect(out.records.map((r) => [r.startPage, r.endPage])).toEqual([
      [1, 2],
      [3, 3],
      [4, 6],
    ]);
    expect(out.records[1]).toMatchObject({ documentType: 'invoice', title: 'INVOICE No. 5512' });
    expect(out.records[1]!.boundaryReason).toMatch(/previous page was the last \(2 of 2\)/);
    expect(out.records[2]!.boundaryReason).toMatch(/title line|topic changes|document type/);
    for (const r of out.records) expect(r.confidence).toBeGreaterThan(0.5);
  });

  it('keeps a single document whole and understands simple rules', () => {
    const one = evidenceOf(pages.slice(3));
    expect(localSplit(one).records.map((r) => [r.startPage, r.endPage])).toEqual([[1, 3]]);
    const every = localSplit(one, [{ name: 'singles', description: 'Each page is a separate document.' }]);
    expect(every.records).toHaveLength(3);
  });

  it('runs through the provider and suggests rules from the signals it sees', async () => {
    const model = resolveModel(readModelConfig({}));
    const ev = evidenceOf(pages);
    const split = await model.generateJson<SplitOutput>(buildSplitRequest({ evidence: ev }));
    expect(split.output.records).toHaveLength(3);
    const rules = await model.generateJson<SplitRulesOutput>(buildSplitRulesRequest({ evidence: ev }));
    expect(rules.output.rules.map((r) => r.name)).toEqual(
      expect.arrayContaining(['page_number_reset', 'running_header', 'title_page']),
    );
  });
});
