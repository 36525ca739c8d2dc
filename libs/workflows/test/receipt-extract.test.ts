// docfleet-local on scanned receipts through runExtractFile, the path the workflow worker runs
// (issue 23.4): each rule on a constructed receipt (not a corpus one), its value cited by a quote
// that is verbatim segment text and contains the value; and a corpus receipt parsed by libs/pdf as
// the parse worker parses it, where what the extractor names depends on the OCR text.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Segment } from '@docfleet/contracts';
import { citationVerifiable, readModelConfig, resolveModel, valueAt } from '@docfleet/models';
import { assembleDocument, inspectDocument, parsePages, segmentsFromGrounding } from '../../pdf/src';
import { runExtractFile } from '../src';

const SCHEMA = {
  title: 'Receipt',
  type: 'object',
  properties: {
    company: { type: 'string', description: 'Company (shop) that issued the receipt' },
    date: { type: 'string', format: 'date', description: 'Date of the receipt' },
    address: { type: 'string', description: 'Postal address of the company' },
    total: { type: 'number', description: 'Total amount paid' },
  },
};

const model = resolveModel(readModelConfig({}), 'docfleet-local');

/** One OCR'd page as the parse gives it: one segment, one paragraph per printed line. */
const extract = (lines: string[]) =>
  extractSegments([
    { id: 'p1-0001', markdown: lines.join('\n\n'), coordinates: { pageNumber: 1 } } as unknown as Segment,
  ]);

/** The key fields of a one-page receipt's segments, every citation checked verifiable. */
async function extractSegments(segments: Segment[]) {
  const doc = await runExtractFile({
    jsonSchema: SCHEMA,
    schemaName: 'receipt',
    allSegments: segments,
    segments,
    pageCount: 1,
    model,
  });
  const result = doc.jsonResult as Record<string, unknown>;
  for (const c of doc.citations) {
    expect({ path: c.path, verifiable: citationVerifiable(valueAt(result, c.path), c, segments) }).toEqual({
      path: c.path,
      verifiable: true,
    });
  }
  return { result, cited: new Set(doc.citations.map((c) => c.path)) };
}

describe('receipt key fields through runExtractFile (docfleet-local)', () => {
  it('an OCR-misread legal form at the top ("SDN BELD") names the issuer, not the customer company below', async () => {
    const { result, cited } = await extract([
      'HARIMAU FOODS (PG) SDN BELD (204411 W) Lot 9, Jalan Perusahaan 4/2,',
      '13600 Prai, Pulau Pinang.',
      'Tel: 04- 3901122 Fax:04- 3901123',
      'TAX INVOICE / CREDIT NOTE',
      'Cash Inv No.: 5512K801',
      'KEDAI RUNCIT BAHAGIA SDN BHD',
      'NO. 8, JALAN MERAH 2,',
      '11900 BAYAN LEPAS, PULAU PINANG',
      'Date: 14/07/2019 09:12',
      'Total Payable: 31.80',
      'CASH 31.80',
    ]);
    expect(result.company).toBe('HARIMAU FOODS (PG) SDN BELD');
    expect(result.address).toBe('Lot 9, Jalan Perusahaan 4/2, 13600 Prai, Pulau Pinang.');
    expect([...cited].sort()).toEqual(['/address', '/company', '/date', '/total']);
  });

  it('a legal form with no readable name before it gives the line up to the form, and the address still follows', async () => {
    const { result } = await extract([
      'T ANJ UNG MA RIN E )SDN BHD (771204-K) Lot 12, Jalan Kilang 3,',
      '81100 Johor Bahru, Johor.',
      'Tel: 07-2231100',
      'RECEIPT',
      'Date: 02/03/2020',
      'TOTAL 12.00',
      'CASH 20.00',
      'CHANGE 8.00',
    ]);
    expect(result.company).toBe('T ANJ UNG MA RIN E )SDN BHD');
    expect(result.address).toBe('Lot 12, Jalan Kilang 3, 81100 Johor Bahru, Johor.');
  });

  it('"S/B" keeps no full stop after it', async () => {
    const { result } = await extract([
      'SEGAR JAYA MART S/B.',
      '(CO.NO. 99812-A)',
      'NO. 5, JALAN DAMAI 3,',
      '43000 KAJANG, SELANGOR.',
      'Receipt NO : 2231',
      'TOTAL 7.50',
      'CASH 10.00',
      'CHANGE 2.50',
    ]);
    expect(result.company).toBe('SEGAR JAYA MART S/B');
  });

  it('a stray mark OCR reads after the address is cut from its end', async () => {
    const { result } = await extract([
      'MELATI BOOK SHOP',
      'NO. 7, JALAN MAWAR 2/1',
      '40100 SHAH ALAM t',
      'Tel: +603-5511 2233',
      'CASH SALES',
      'TOTAL 4.20',
      'CASH 5.00',
      'CHANGE 0.80',
    ]);
    expect(result.address).toBe('NO. 7, JALAN MAWAR 2/1 40100 SHAH ALAM');
  });

  it('border marks at the edges of the name and address lines are no part of them', async () => {
    const { result } = await extract([
      '| KEDAI KOPI SRI MURNI SDN BHD .',
      '| 21, JALAN AMAN 4/2,',
      '52100 KEPONG, KUALA LUMPUR > |',
      'Mobile /Whatsapps : +6012-345 6789',
      'TAX INVOICE',
      'TOTAL 9.90',
      'CASH 10.00',
      'CHANGE 0.10',
    ]);
    expect(result.company).toBe('KEDAI KOPI SRI MURNI SDN BHD');
    expect(result.address).toBe('21, JALAN AMAN 4/2, 52100 KEPONG, KUALA LUMPUR');
  });

  it('a registration number misread with "~" is cut from the name line', async () => {
    const { result } = await extract([
      'BINTANG CO. (M) BHD (558812~K)',
      '2ND FLR, BINTANG MALL, JALAN BESAR,',
      '50200 KUALA LUMPUR',
      'TOTAL 15.00',
      'CASH 15.00',
    ]);
    expect(result.company).toBe('BINTANG CO. (M) BHD');
  });

  it('a logo read as short words on the first line gives way to the name over the address', async () => {
    const { result } = await extract([
      'ab ee wo',
      'SINAR JAYA HARDWARE TRADING',
      '(JM0123456-T)',
      'NO 7, JALAN BESI 2,',
      '81700 PASIR GUDANG, JOHOR.',
      'TOTAL 18.00',
      'CASH 20.00',
      'CHANGE 2.00',
    ]);
    expect(result.company).toBe('SINAR JAYA HARDWARE TRADING');
    expect(result.address).toBe('NO 7, JALAN BESI 2, 81700 PASIR GUDANG, JOHOR.');
  });

  it('a misread total loses to the amount that subtotal + tax + rounding make', async () => {
    const { result } = await extract([
      'TERANG LIGHTING ENTERPRISE',
      'NO. 3, JALAN INDAH 1,',
      '47100 PUCHONG, SELANGOR',
      'DATE: 11/09/2018',
      'SUB-TOTAL 38.68',
      'GST 2.32',
      'ROUNDING 0.00',
      'TOTAL 47.00',
      'CASH 41.00',
      'CHANGE 06.00',
    ]);
    expect(result.total).toBe(41);
  });

  it('labels printed apart from their amounts: the "Payment Type" amount is what was paid', async () => {
    const { result } = await extract([
      'PASAR SEGAR MARKET S/B',
      'LOT 4, JALAN SS 2/24,',
      '47300 PETALING JAYA, SELANGOR.',
      'Receipt NO : 5521',
      '12-Mar-2019',
      'Sub Total',
      'Rounding Adj.',
      'Total',
      'Payment Type RM23.50',
      'Received Cash',
      'Change',
    ]);
    expect(result.total).toBe(23.5);
  });

  it('a tax summary whose last column is the total gives the amount paid when no total line carries one', async () => {
    const { result } = await extract([
      'PERABOT MEWAH SDN BHD',
      'Lot 2-5, Jalan Bukit 8,',
      '56000 Kuala Lumpur.',
      'Date: 05-02-19 11:40',
      'SOFA 3 SEATER 1 @ 1,200.00 1,200.00 SR',
      'Total RM',
      'CASH: (MYR)',
      'Change',
      'GST% Amt(RM) GST(RM) Total(RM)',
      'SR 6 1,200.00 72.00 1,272.00',
    ]);
    expect(result.total).toBe(1272);
  });
});

describe('a total whose currency OCR misread ("Total fM1.00" for "Total RM1.00")', () => {
  it('is read as the amount paid and cited verifiably', async () => {
    const { result, cited } = await extract([
      'KEDAI RUNCIT MURAH SDN BHD (1234-A)',
      'NO. 3, JALAN PASAR 1,',
      '43000 KAJANG, SELANGOR.',
      'Date: 14/07/2019',
      'Mineral water 1 1.00',
      'Total fM1.00',
      'CASH fM5.00',
      'CHANGE fM4.00',
    ]);
    expect(result.total).toBe(1);
    expect(cited.has('/total')).toBe(true);
  });
});

describe('a printed month name read one letter off ("14/dun/2017" for "14/JUN/2017")', () => {
  it('is read as that month where exactly one month is a letter away, and cited verifiably', async () => {
    const { result, cited } = await extract([
      'KEDAI BUKU CERIA SDN BHD (5678-K)',
      'NO. 9, JALAN ILMU 2,',
      '40150 SHAH ALAM, SELANGOR.',
      'CB# : 55120931 14/dun/2017 08:34:22',
      'Exercise book 2 3.00',
      'Total 3.00',
      'CASH 5.00',
    ]);
    expect(result.date).toBe('2017-06-14');
    expect(cited.has('/date')).toBe(true);
    // "jum" is a letter off both "jun" and "jul": no telling which month.
    const twoMonths = await extract(['KEDAI BUKU CERIA SDN BHD (5678-K)', 'CB# : 55120931 14/jum/2017', 'Total 3.00']);
    expect(twoMonths.result.date ?? null).toBeNull();
  });
});

describe('a scanned receipt parsed by libs/pdf, then extracted', () => {
  const CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(__dirname, '../../../../shared/corpus');
  // "SANYO STATIONERY SHOP" in the letterhead, "SANYU SUPPLY SDN BHD" and "Sanyu.Stationery" below it.
  const RECEIPT = path.join(CORPUS, 'c_scanned_images/sroie/473.jpg');
  async function parsed(ocrHeaderLexicon: boolean): Promise<Segment[]> {
    const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'receipt-ocr-'));
    try {
      const backend = (await inspectDocument(RECEIPT, 'image')).backend.backend;
      const r = await parsePages({
        path: RECEIPT,
        kind: 'image',
        backend,
        outDir: tmp,
        renderPages: false,
        ocrHeaderLexicon,
      });
      const pages = r.pages;
      const { grounding } = assembleDocument(
        '473.jpg',
        'image',
        pages.map((p) => p.grounding),
        pages.map((p) => p.markdown),
        backend,
        {
          pageCount: pages.length,
        },
      );
      return segmentsFromGrounding(grounding, {
        fileId: '473.jpg',
        docName: '473.jpg',
        manifestId: 'test',
        sourceType: 'image',
      });
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }

  it('names the shop as the page spells it elsewhere (libs/pdf/src/ocr/page-name-vote.ts), cited from the mended letterhead', async () => {
    const off = await extractSegments(await parsed(false));
    expect(off.result.company).toBe('SANYO STATIONERY SHOP');
    const on = await extractSegments(await parsed(true));
    expect(on.result.company).toBe('SANYU STATIONERY SHOP');
    expect(on.cited.has('/company')).toBe(true);
  }, 180_000);
});
