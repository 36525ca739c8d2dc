// docfleet-local on receipts and slips (issue 23.4): legal forms of many countries, day/month order
// decided from the document, and the amount paid among a receipt's totals.
import type { Segment } from '@docfleet/contracts';
import { localExtract } from '../src/local/extract/extract';
import { dateOrderOf, findDates, withDateOrder } from '../src/local/text/dates';
import { findOrganisations } from '../src/local/text/entities';
import { findAmounts } from '../src/local/text/amounts';

const seg = (markdown: string): Segment =>
  ({ id: 'seg-1', markdown, coordinates: { pageNumber: 1 } }) as unknown as Segment;
const SCHEMA = {
  title: 'Receipt',
  fields: [
    { name: 'company', type: 'string' },
    { name: 'date', type: 'date' },
    { name: 'address', type: 'string' },
    { name: 'total', type: 'number' },
  ],
};

describe('organisations by legal form', () => {
  it.each([
    ['KEDAI MAJU SDN. BHD.', 'KEDAI MAJU SDN. BHD.'],
    ['Harbour Foods Pte Ltd', 'Harbour Foods Pte Ltd'],
    ['Müller Bau GmbH', 'Müller Bau GmbH'],
    ['Boulangerie Dupont SARL', 'Boulangerie Dupont SARL'],
    ['Van Dijk Logistiek BV', 'Van Dijk Logistiek BV'],
    ['Acme Widgets LLC', 'Acme Widgets LLC'],
    ['NORTH STAR TRADING CO', 'NORTH STAR TRADING CO'],
    ['Rossi Costruzioni S.r.l.', 'Rossi Costruzioni S.r.l.'],
  ])('%s', (text, name) => {
    expect(findOrganisations(text).map((o) => o.name)).toEqual([name]);
  });
});

describe('day/month order from the document', () => {
  it('a day over 12 elsewhere on the page makes 03/04 the 3rd of April', () => {
    const order = dateOrderOf('Printed 25/12/2019\nDate: 03/04/2019');
    expect(order).toBe('dmy');
    expect(withDateOrder(order, () => findDates('03/04/2019')[0]!.iso)).toBe('2019-04-03');
  });
  it('a month-first date elsewhere, or a US address, reads month first; a ringgit receipt day first', () => {
    expect(dateOrderOf('12/25/2019 and 03/04/2019')).toBe('mdy');
    expect(dateOrderOf('Springfield, IL 62704\n03/04/2019')).toBe('mdy');
    expect(dateOrderOf('TOTAL RM 12.00\n03/04/2019')).toBe('dmy');
  });
  it('reads month names in receipt forms', () => {
    expect(findDates('14/JUN/2017 05-AUG-2017 28 MAR 18').map((d) => d.iso)).toEqual([
      '2017-06-14',
      '2017-08-05',
      '2018-03-28',
    ]);
  });
});

describe('a receipt through localExtract', () => {
  const receipt = [
    'TAX INVOICE',
    'KEDAI MAJU SDN BHD',
    '(123456-X)',
    'NO. 12, JALAN BUNGA 3,',
    '43000 KAJANG, SELANGOR.',
    'TEL: 03-1234 5678',
    'GST ID: 000123456789',
    'Date: 03/04/2018 10:22',
    'NASI LEMAK 2 X 4.50 9.00',
    'SUB TOTAL 9.00',
    'GST 6% 0.54',
    'TOTAL (INCL GST) 9.54',
    'ROUNDING ADJ 0.01',
    'TOTAL ROUNDED 9.55',
    'CASH RM 20.00',
    'CHANGE RM 10.45',
    'Printed 25/04/2018',
  ].join('\n\n');

  it('finds the company by its legal form, the address block under it, the day-first date and the amount paid', () => {
    const out = localExtract({ segments: [seg(receipt)] }, SCHEMA);
    expect(out.jsonResult).toEqual({
      company: 'KEDAI MAJU SDN BHD',
      date: '2018-04-03',
      address: 'NO. 12, JALAN BUNGA 3, 43000 KAJANG, SELANGOR.',
      total: 9.55,
    });
    for (const c of out.citations) expect(receipt.includes(c.quote)).toBe(true);
    const quote = (p: string) => out.citations.find((c) => c.path === p)!.quote;
    expect(quote('/total')).toContain('9.55');
    expect(quote('/address').replace(/\s+/g, ' ')).toContain('NO. 12, JALAN BUNGA 3, 43000 KAJANG, SELANGOR.');
  });

  it('does not take a registration number for the company', () => {
    const out = localExtract(
      { segments: [seg('Company No: 742016-W\n\nSAM SAM TRADING CO\n\nTOTAL 5.00\n\nCASH 5.00')] },
      SCHEMA,
    );
    expect(out.jsonResult.company).toBe('SAM SAM TRADING CO');
  });

  it('reads amounts printed after a currency word or glued to a label', () => {
    expect(findAmounts('TOTAL RM 14.10').map((a) => [a.value, a.currency])).toEqual([[14.1, 'MYR']]);
    expect(findAmounts('Total 7,838.80').map((a) => a.value)).toEqual([7838.8]);
  });
});
