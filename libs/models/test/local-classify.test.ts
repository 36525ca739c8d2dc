import {
  buildClassifyRequest,
  buildClassifySuggestRequest,
  readModelConfig,
  resolveModel,
  type ClassifyOutput,
  type ClassifySuggestOutput,
} from '../src';
import { localClassify } from '../src/local/classify/classify';
import { evidenceOf } from './helpers/evidence';

const invoicePage = [
  'Invoice number: 881',
  '| Item | Qty | Unit price | Total |\n|---|---|---|---|\n| Widget | 2 | $ 5.00 | $ 10.00 |',
  'Subtotal $ 10.00, VAT $ 2.00, Amount due $ 12.00',
];
const ndaPage = [
  'MUTUAL NON-DISCLOSURE AGREEMENT',
  'The Receiving Party shall hold the Confidential Information of the Disclosing Party in confidence. This Agreement shall be governed by the laws of the State of Texas. The term of this Agreement shall be two years.',
];
const paperPage = [
  'Abstract',
  'We propose a method for table structure recognition and evaluate it on a public dataset [3], [7]. Experiments show state of the art accuracy compared with prior work (Smith et al.). In this paper we describe the model architecture and the training.',
];

describe('docfleet-local classify', () => {
  it('labels the document and each page from the given classes only', () => {
    const out = localClassify(evidenceOf([invoicePage, ndaPage, ndaPage]), [
      'invoice',
      'contract_nda',
      'scientific_paper',
    ]);
    expect(out.document.class).toBe('contract_nda');
    expect(out.pages.map((p) => p.class)).toEqual(['invoice', 'contract_nda', 'contract_nda']);
    expect(out.document.rationale).toMatch(/contract_nda/);
    expect(out.document.confidence).toBeGreaterThan(0.4);
  });

  it('uses class descriptions for classes it has no vocabulary for', () => {
    const ev = evidenceOf([
      ['Patient discharge summary: the patient was admitted with pneumonia and treated with antibiotics.'],
    ]);
    const out = localClassify(ev, [
      { name: 'medical_record', description: 'patient admission, diagnosis, treatment, discharge' },
      { name: 'invoice', description: '' },
    ]);
    expect(out.document.class).toBe('medical_record');
  });

  it('supports multi-label output and falls back honestly when nothing matches', () => {
    const multi = localClassify(evidenceOf([invoicePage, ndaPage]), ['invoice', 'contract_nda'], { multiLabel: true });
    expect(multi.document.labels?.map((l) => l.class).sort()).toEqual(['contract_nda', 'invoice']);
    const none = localClassify(evidenceOf([['zzz qqq']]), ['invoice', 'contract']);
    expect(none.document).toMatchObject({ class: 'invoice', confidence: 0.2 });
    expect(none.document.rationale).toMatch(/No vocabulary/);
  });

  it('runs through the provider, and suggests classes', async () => {
    const model = resolveModel(readModelConfig({}));
    const ev = evidenceOf([paperPage, invoicePage]);
    const res = await model.generateJson<ClassifyOutput>(
      buildClassifyRequest({ evidence: ev, classes: ['scientific_paper', 'invoice'] }),
    );
    expect(res.output.pages.map((p) => p.class)).toEqual(['scientific_paper', 'invoice']);
    const sug = await model.generateJson<ClassifySuggestOutput>(
      buildClassifySuggestRequest({ evidence: ev, guidelines: 'also separate receipts' }),
    );
    const names = sug.output.classes.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['receipt', 'scientific_paper', 'invoice', 'other']));
    expect(names[0]).toBe('receipt');
  });
});

describe('docfleet-local classify: features of the kind of document', () => {
  const classes = ['government_report_with_tables', 'scientific_paper', 'tabular_report', 'textbook', 'receipt'];
  const model = resolveModel(readModelConfig({}));
  const classify = async (ev: ReturnType<typeof evidenceOf>, extra: string[] = []) =>
    (await model.generateJson<ClassifyOutput>(buildClassifyRequest({ evidence: ev, classes: [...classes, ...extra] })))
      .output;
  const table = (rows: number) =>
    ['| Group | 2019 | 2020 | Change % |', '|---|---|---|---|']
      .concat(Array.from({ length: rows }, (_, i) => `| Group ${i} | ${100 + i} | ${110 + i} | ${(i % 9) + 1}.5 |`))
      .join('\n');
  // Written like a study's results section (results, et al, figure) but laid out as a publication:
  // running header, titled tables with Source lines, no reference list.
  const reportPage = (n: number) => [
    'Healthy Workers Survey ______________________',
    `## Results by group, part ${n}`,
    'The results confirm the trend reported by Smith et al. for the same groups; see the figure below.',
    `Table ${n}.1: Share of workers by group`,
    table(6),
    'Source: survey of workers, own calculations.',
    `${40 + n}`,
  ];

  it('takes a publication of titled tables for a report, and the same words with a reference list for a paper', async () => {
    const report = await classify(evidenceOf([reportPage(1), reportPage(2), reportPage(3)]));
    expect(report.document.class).toBe('government_report_with_tables');
    const paper = await classify(
      evidenceOf([
        [
          'Abstract',
          'We propose a method; results confirm the trend reported by Smith et al. in this paper.',
          table(4),
        ],
        [
          'References',
          '[1] A. Smith et al. Surveys of workers. 2019.',
          '[2] B. Jones. Groups. 2020.',
          '[3] C. Li. Trends. 2021.',
        ],
      ]),
    );
    expect(paper.document.class).toBe('scientific_paper');
  });

  it('keeps one long listing a tabular report, and asks length of a textbook', async () => {
    const listing = await classify(evidenceOf([['Report of schools by type', table(60)]]));
    expect(listing.document.class).toBe('tabular_report');
    const chapter = [
      '# Chapter 3 Compactness',
      'Definition 3.1. A space is compact if every open cover has a finite subcover.',
      'Theorem 3.2. A closed subset of a compact space is compact. Proof. Take an open cover. Exercise: show the converse fails.',
    ];
    const book = await classify(evidenceOf(Array.from({ length: 45 }, () => chapter)), ['generic_text_sample']);
    expect(book.document.class).toBe('textbook');
    // The same pages as a short handout are much weaker evidence of a book: length is a feature of the kind.
    const handout = await classify(evidenceOf([chapter, chapter]), ['generic_text_sample']);
    const score = (r: string) => Number(/score ([\d.]+)/.exec(r)?.[1]);
    expect(score(handout.document.rationale)).toBeLessThan(score(book.document.rationale) / 2);
  });
});
