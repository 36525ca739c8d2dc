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

describe('docfleet-local classify: scans and photos by the kind of document', () => {
  const classes = ['receipt', 'invoice', 'ocr_text_sample', 'scientific_table_image', 'bank_statement'];
  const model = resolveModel(readModelConfig({}));
  /** Evidence of a photographed or scanned page: OCR lines, and an image as the input file. */
  const scan = (lines: string[]) => {
    const ev = evidenceOf([lines]);
    ev.segments.forEach((s) => (s.sourceType = 'image'));
    ev.grounding = {
      schema_version: '1',
      document: { filename: 'scan.jpg', file_type: 'image', page_count: 1, processed_at: '', mode: 'text' },
      pages: [{ page_number: 1, width: 600, height: 1400, dpi: 72, elements: [] }],
    } as unknown as NonNullable<typeof ev.grounding>;
    return ev;
  };
  const classify = async (lines: string[]) =>
    (await model.generateJson<ClassifyOutput>(buildClassifyRequest({ evidence: scan(lines), classes }))).output
      .document;

  // A till slip read by OCR: misread words, few of the receipt vocabulary's terms, and a "TAX INVOICE"
  // heading as many shops print. Its layout (narrow print, item amounts, total, cash and change) says receipt.
  const slip = [
    'KEDAI MAJU TRADING',
    '12, JLN MERANTI 3, 43000 KAJANG',
    'TAX INVOICE',
    'Doc No: 88213 Date: 14/02/2018',
    'Item Qty Amt',
    'BREAD WHOLEMEAL 1 3.50',
    'MILK 1L 2 11.80',
    'EGGS GRADE A 1 6.20',
    'SUGAR 1KG 1 2.85',
    'TOTAL: 24.35',
    'CASH 50.00',
    'CHANGE 25.65',
  ];

  it('takes a photographed till slip for a receipt, not for an image of text or an invoice', async () => {
    const out = await classify(slip);
    expect(out.class).toBe('receipt');
    expect(out.rationale).toMatch(/receipt_layout/);
  });

  it('tells an invoice from a receipt by its billing block', async () => {
    const invoice = await classify([
      'ACME SUPPLIES LTD',
      'Invoice number: INV-2291 Invoice date: 3 March 2018',
      'Bill to: Kedai Maju Trading, 12 Jln Meranti 3, 43000 Kajang',
      'Customer no: 5521 Payment terms: 30 days Due date: 2 April 2018',
      'Description Quantity Unit price Amount',
      'Bread wholemeal, cartons of 24 10 60.00 600.00',
      'Total due 600.00',
    ]);
    expect(invoice.class).toBe('invoice');
    // The same billing words do not move the till slip.
    expect((await classify(slip)).class).toBe('receipt');
  });

  it('takes running text for an image of text and rows of numbers for a table image', async () => {
    const prose = await classify([
      'This is a short page of printed text that was scanned',
      'and read back by the recogniser, line by line, so that',
      'the words come out in the order in which they were set.',
    ]);
    expect(prose.class).toBe('ocr_text_sample');
    const table = await classify([
      'Variable Hazard ratio Cl p value',
      'Age 1.000 0.310-2.248 0.41',
      'Male 1.000 0.152-1.190 0.09',
      'Grade 1.933 0.416-3.423 0.37',
      'Stage 1.119 0.137-9.137 0.88',
      'Size 0.381 0.086-1.514 0.19',
    ]);
    expect(table.class).toBe('scientific_table_image');
    // A column of row labels (the numbers lost to OCR) is a table's grid too, not prose.
    const labels = await classify([
      'Language Early',
      'Cantonese 21',
      'Mandarin 13',
      'Arabic',
      'Danish',
      'Farsi',
      'Filipino',
      'German',
      'Japanese',
      'Korean',
    ]);
    expect(labels.class).toBe('scientific_table_image');
  });
});
