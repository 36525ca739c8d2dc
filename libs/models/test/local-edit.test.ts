import { buildEditRequest, readModelConfig, resolveModel, type EditOutput } from '../src';
import { localEdit } from '../src/local/edit/edit';
import { evidenceOf } from './helpers/evidence';

const ev = evidenceOf([
  ['Contact: jane.doe@example.com, phone +1 (415) 555-0199', 'Invoice date: 03/20/2023 — due 4 April 2023'],
  [
    '| Item | Price |\n|---|---|\n| Chair | € 1.234,50 |\n| Desk | $ 99.90 |',
    'Supplier: Acme Corp; reference 202309097001; VAT 15.00%',
  ],
]);

describe('docfleet-local edit', () => {
  it('proposes concrete line changes and a patch, never touching the evidence', () => {
    const before = JSON.stringify(ev);
    const out = localEdit(ev, 'Replace "Acme Corp" with "Acme Inc." and convert dates to ISO.', [
      'Redact emails and phone numbers',
      'Normalise currency amounts',
    ]);
    expect(JSON.stringify(ev)).toBe(before);
    const after = Object.fromEntries(out.changes.map((c) => [c.segmentId, c.after]));
    expect(after['p1-s0']).toBe('Contact: [REDACTED EMAIL], phone [REDACTED PHONE]');
    expect(after['p1-s1']).toBe('Invoice date: 2023-03-20 — due 2023-04-04');
    expect(out.changes.filter((c) => c.segmentId === 'p2-s0').map((c) => c.after)).toEqual([
      '| Chair | EUR 1234.50 |',
      '| Desk | USD 99.90 |',
    ]);
    // Reference numbers and percentages are neither phones nor amounts.
    expect(after['p2-s1']).toBe('Supplier: Acme Inc.; reference 202309097001; VAT 15.00%');
    expect(out.changes.every((c) => c.pageNumber >= 1 && c.reason)).toBe(true);
    expect(out.patch).toMatch(/^--- a\/result\.md\n\+\+\+ b\/result\.md\n@@ segment p1-s0 page 1 @@\n-Contact: jane/);
    expect(out.summary).toMatch(/would change/);
  });

  it('says so when it does not understand the instruction', async () => {
    const model = resolveModel(readModelConfig({}));
    const { output } = await model.generateJson<EditOutput>(
      buildEditRequest({ evidence: ev, instruction: 'Make the tone friendlier.' }),
    );
    expect(output.changes).toEqual([]);
    expect(output.patch).toBe('');
    expect(output.summary).toMatch(/not understood/);
  });
});
