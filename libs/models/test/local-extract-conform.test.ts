// docfleet-local keeps its output inside the requested types: a value of another type becomes an
// honest null with a warning instead of output the schema check rejects (a failed call).
import { buildExtractRequest, LocalProvider } from '../src';
import { conform } from '../src/local/extract/extract';
import type { Segment } from '@docfleet/contracts';

const seg = (id: string, markdown: string): Segment => ({
  id,
  docId: 'd',
  docName: 'd.pdf',
  title: '',
  markdown,
  coordinates: { pageNumber: 1, bbox: [0, 0, 1, 1] } as never,
  pdfUrl: '',
  sourceType: 'pdf',
});

it('answers a number field whose printed value is not numeric with null and a type_mismatch warning', async () => {
  const ev = { segments: [seg('s1', 'Invoice No: INV-2024-A\nDate: 2024-03-01\nTotal: EUR 1.234,50')] };
  const req = buildExtractRequest({
    evidence: ev,
    schema: {
      fields: [
        { name: 'invoice_number', type: 'number' },
        { name: 'total', type: 'number' },
      ],
    },
  });
  const res = await new LocalProvider().generateJson<{
    jsonResult: Record<string, unknown>;
    citations: Array<{ path: string }>;
    warnings: Array<{ code: string; path?: string }>;
  }>(req);
  expect(res.output.jsonResult.invoice_number).toBeNull();
  expect(res.output.warnings).toContainEqual(
    expect.objectContaining({ code: 'type_mismatch', path: '/invoice_number' }),
  );
  expect(res.output.citations.map((c) => c.path)).not.toContain('/invoice_number');
  expect(res.output.jsonResult.total).toBe(1234.5);
});

it('conforms strings to numbers and booleans by the field type', () => {
  const f = (type: 'number' | 'boolean' | 'string') => ({ name: 'x', type });
  expect(conform(f('number'), '$ 12,345.60')).toBe(12345.6);
  expect(conform(f('number'), '1.234,5')).toBe(1234.5);
  expect(conform(f('number'), 'INV-12')).toBeUndefined();
  expect(conform(f('boolean'), 'Yes')).toBe(true);
  expect(conform(f('string'), 42)).toBe('42');
});
