import path from 'node:path';
import {
  buildExtractRequest,
  citationVerifiable,
  resolveModel,
  readModelConfig,
  valueAt,
  type ExtractOutput,
} from '../src';
import { localExtract } from '../src/local/extract/extract';
import { DEFAULT_CORPUS, parseEvidence, type ParsedEvidence } from '../eval/corpus-evidence';
import { NDA_SCHEMA } from '../eval/corpus-sets';
import { evidenceOf } from './helpers/evidence';

const INVOICE = {
  fields: [
    { name: 'Invoice Number', type: 'string', description: '' },
    { name: 'invoice_date', type: 'date', description: 'Date of issue' },
    { name: 'due_date', type: 'date', description: '' },
    { name: 'total', type: 'number', description: 'Amount due' },
    { name: 'currency', type: 'string', description: '' },
    { name: 'purchase_order', type: 'string', description: 'PO number' },
    {
      name: 'lines',
      type: 'table',
      description: 'Line items',
      children: [
        { name: 'description', type: 'string', description: '' },
        { name: 'qty', type: 'number', description: '' },
        { name: 'amount', type: 'number', description: '' },
      ],
    },
  ],
};

// A small invoice nobody tuned against: labels in a different style from the corpus.
const sample = evidenceOf([
  [
    '# ACME Tools Ltd',
    'INVOICE #: A-2291\nIssue date: 5 March 2024   Due date: 04/04/2024',
    '| Description | Qty | Amount |\n|---|---|---|\n| Hammer | 2 | £ 30.00 |\n| Nails (box) | 10 | £ 12.50 |',
    'Subtotal: £ 42.50\nVAT 20%: £ 8.50\nBalance due: £ 51.00',
  ],
]);

describe('docfleet-local extract', () => {
  it('finds labelled values, tables, dates and totals with verbatim, verifiable citations', () => {
    const out = localExtract(sample, INVOICE);
    expect(out.jsonResult).toEqual({
      invoice_number: 'A-2291',
      invoice_date: '2024-03-05',
      due_date: '2024-04-04',
      total: 51,
      currency: 'GBP',
      purchase_order: null,
      lines: [
        { description: 'Hammer', qty: 2, amount: 30 },
        { description: 'Nails (box)', qty: 10, amount: 12.5 },
      ],
    });
    // Honest not_in_evidence: no citation for the missing purchase order.
    expect(out.citations.some((c) => c.path === '/purchase_order')).toBe(false);
    for (const c of out.citations) {
      expect(citationVerifiable(valueAt(out.jsonResult, c.path), c, sample.segments)).toBe(true);
      expect(c.confidence).toBeGreaterThan(0);
    }
    expect(out.citations.find((c) => c.path === '/total')).toMatchObject({
      segmentId: 'p1-s3',
      pageNumber: 1,
      quote: 'Balance due: £ 51.00',
    });
    expect(out.citations.find((c) => c.path === '/lines/1/qty')?.quote).toBe('10');
  });

  it('reads German and Dutch labels and labels stacked above their values', () => {
    const de = evidenceOf([
      ['| Rechnungsnr. | 7781 |\n|---|---|\n| Rechnungsdatum | 3. März 2021 |', '### Gesamtbetrag', '1.234,50 €'],
    ]);
    expect(
      localExtract(de, {
        fields: [
          { name: 'invoice_number', type: 'string' },
          { name: 'date', type: 'date' },
          { name: 'total_amount', type: 'number' },
          { name: 'currency', type: 'string' },
        ],
      }).jsonResult,
    ).toEqual({ invoice_number: '7781', date: '2021-03-03', total_amount: 1234.5, currency: 'EUR' });
    const nl = evidenceOf([['### Factuurdatum:', '### Vervaldatum:', '12-01-2020\n\n26-01-2020']]);
    expect(
      localExtract(nl, {
        fields: [
          { name: 'invoice_date', type: 'date' },
          { name: 'due_date', type: 'date' },
        ],
      }).jsonResult,
    ).toEqual({ invoice_date: '2020-01-12', due_date: '2020-01-26' });
  });

  it('fills nested objects and returns null (not {}) when nothing is found', () => {
    const out = localExtract(sample, {
      fields: [
        {
          name: 'payment',
          type: 'object',
          children: [
            { name: 'balance_due', type: 'number' },
            { name: 'iban', type: 'string' },
          ],
        },
        { name: 'shipping', type: 'object', children: [{ name: 'carrier', type: 'string' }] },
      ],
    });
    expect(out.jsonResult).toEqual({ payment: { balance_due: 51, iban: null }, shipping: null });
    expect(out.citations.map((c) => c.path)).toEqual(['/payment/balance_due']);
  });

  it('extracts contract fields stated in sentences', () => {
    const nda = evidenceOf([
      [
        'This Confidentiality Agreement is entered into as of January 15, 2019 between Northwind Traders, Inc., a Delaware corporation (“Northwind”), and Contoso Ltd. (“Contoso”).',
        '7. This Agreement shall be governed by the laws of the Commonwealth of Massachusetts.',
        '8. The term of this Agreement is eighteen (18) months.',
      ],
    ]);
    const out = localExtract(nda, NDA_SCHEMA);
    expect(out.jsonResult).toEqual({
      effective_date: '2019-01-15',
      party: ['Northwind Traders, Inc.', 'Contoso Ltd.'],
      jurisdiction: 'Massachusetts',
      term: '18 months',
    });
  });

  it('warns and returns nulls without evidence', () => {
    const out = localExtract({ segments: [] }, INVOICE);
    expect(Object.values(out.jsonResult).every((v) => v === null)).toBe(true);
    expect(out.warnings[0]?.code).toBe('no_evidence');
  });

  describe('on corpus documents through resolveModel', () => {
    const model = resolveModel(readModelConfig({}), 'docfleet-local');
    let aws: ParsedEvidence;
    beforeAll(async () => {
      aws = await parseEvidence(path.join(DEFAULT_CORPUS, 'f_forms_invoices/invoice2data/AmazonWebServices.pdf'));
    });

    it('extracts the AWS invoice with schema-valid output', async () => {
      const { output, modelId, usage } = await model.generateJson<ExtractOutput>(
        buildExtractRequest({
          evidence: aws.evidence,
          schema: {
            fields: [
              { name: 'invoice_number', type: 'string' },
              { name: 'invoice_date', type: 'date' },
              { name: 'total', type: 'number' },
              { name: 'currency', type: 'string' },
            ],
          },
        }),
      );
      expect(modelId).toBe('docfleet-local');
      expect(usage.inputTokens).toBeGreaterThan(100);
      expect(output.jsonResult).toEqual({
        invoice_number: '42183017',
        invoice_date: '2014-08-03',
        total: 4.11,
        currency: 'USD',
      });
      for (const c of output.citations)
        expect(aws.segments.find((s) => s.id === c.segmentId)?.markdown).toContain(c.quote);
    });
  });
});
