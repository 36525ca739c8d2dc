import {
  buildSchemaGenerateRequest,
  fieldListToJsonSchema,
  normalizeFieldSchema,
  readModelConfig,
  resolveModel,
  schemaIssues,
  type SchemaGenerateOutput,
} from '../src';
import { localExtract } from '../src/local/extract/extract';
import { evidenceOf } from './helpers/evidence';

const invoice = evidenceOf([
  [
    '# Invoice',
    'Invoice No: 77-A\nInvoice Date: 01/02/2024\nCustomer ID: C-9',
    '| Description | Quantity | Unit price | Amount |\n|---|---|---|---|\n| Paper | 3 | 4.00 | 12.00 |\n| Ink | 1 | 20.00 | 20.00 |',
    'Total: $ 32.00',
  ],
]);

describe('docfleet-local schema_generate', () => {
  it('derives typed fields and a table from an invoice, reusable for extraction', async () => {
    const model = resolveModel(readModelConfig({}));
    const { output } = await model.generateJson<SchemaGenerateOutput>(
      buildSchemaGenerateRequest({ evidence: invoice, title: 'Supplier invoice' }),
    );
    expect(output.documentType).toBe('invoice');
    expect(output.schema.title).toBe('Supplier invoice');
    const byName = Object.fromEntries(output.schema.fields.map((f) => [f.name, f]));
    expect(byName.invoice_number?.type).toBe('string');
    expect(byName.invoice_date?.type).toBe('date');
    expect(byName.total_amount?.type).toBe('number');
    expect(byName.customer_number?.type).toBe('string');
    const table = output.schema.fields.find((f) => f.type === 'table')!;
    expect(table.children?.map((c) => `${c.name}:${c.type}`)).toEqual([
      'description:string',
      'quantity:number',
      'unit_price:number',
      'amount:number',
    ]);
    expect(output.schemaRationale).toMatch(/labelled values/);
    // The generated schema is a valid field list and extracts its own sample.
    const normalized = normalizeFieldSchema(output.schema);
    expect(schemaIssues({ type: 'object' }, fieldListToJsonSchema(normalized))).toEqual([]);
    const again = localExtract(invoice, normalized);
    expect(again.jsonResult).toMatchObject({ invoice_number: '77-A', invoice_date: '2024-01-02', total_amount: 32 });
    expect((again.jsonResult[table.name] as unknown[]).length).toBe(2);
  });

  it('normalises field names and types per docs/api.md', () => {
    const s = normalizeFieldSchema({
      fields: [{ name: 'Invoice No.', type: 'currency', children: [{ name: 'Sub Item', type: 'number' }] }],
    });
    expect(s.fields[0]).toMatchObject({ id: 'field-invoice_no_', name: 'invoice_no_', type: 'string' });
    expect(s.fields[0]!.children![0]).toMatchObject({
      id: 'field-invoice_no_.sub_item',
      name: 'sub_item',
      type: 'number',
    });
    const js = fieldListToJsonSchema(
      normalizeFieldSchema({
        fields: [{ name: 'rows', type: 'table', required: true, children: [{ name: 'a', type: 'string' }] }],
      }),
    );
    expect(js).toMatchObject({
      type: 'object',
      required: ['rows'],
      additionalProperties: false,
      properties: { rows: { type: 'array', items: { type: 'object' } } },
    });
  });
});
