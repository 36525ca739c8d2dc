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

describe('receipt letterheads, addresses and totals (issue 23, constructed text)', () => {
  const extract = (lines: string[]) => {
    const text = lines.join('\n\n');
    const out = localExtract({ segments: [seg(text)] }, SCHEMA);
    // Every value is cited, and the cited text (verbatim from the segment) contains it.
    const flat = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');
    for (const [field, value] of Object.entries(out.jsonResult)) {
      if (value === null || value === undefined) continue;
      const c = out.citations.find((x) => x.path === `/${field}`);
      expect(c).toBeDefined();
      expect(text.includes(c!.quote)).toBe(true);
      if (typeof value === 'string' && field !== 'date') expect(flat(c!.quote)).toContain(flat(value));
      if (typeof value === 'number') expect(findAmounts(c!.quote).some((a) => a.value === value)).toBe(true);
    }
    return out.jsonResult;
  };

  it('keeps the shop name at the top when its owner is printed lower down ("Owned By: … SDN BHD")', () => {
    const r = extract([
      'LUCKY STATIONERY SHOP',
      'NO. 31G, JALAN SETIA INDAH X ,U13/X',
      '40170 SETIA ALAM',
      'Tel: +603-3362 4137',
      'Owned By :',
      'LUCKY SUPPLY SDN BHD (1135772-K)',
      'Total 4.50',
      'CASH 50.00',
      'CHANGE 45.50',
    ]);
    expect(r.company).toBe('LUCKY STATIONERY SHOP');
    expect(r.address).toBe('NO. 31G, JALAN SETIA INDAH X ,U13/X 40170 SETIA ALAM');
  });

  it('starts the address on the name line after its registration number', () => {
    const r = extract([
      'SUNRISE BAKERIES (KL) SDN BHD (139386 X) Lot 3, Jalan Pelabur 23/1,',
      '40300 Shah Alam, Selangor.',
      'Tel: 03-55423228 Fax: 03-55423213',
      'Total Payable: 14.79',
      'CASH 20.00',
    ]);
    expect(r.company).toBe('SUNRISE BAKERIES (KL) SDN BHD');
    expect(r.address).toBe('Lot 3, Jalan Pelabur 23/1, 40300 Shah Alam, Selangor.');
  });

  it('ends the address where a phone number shares its line, and after the state line', () => {
    expect(
      extract([
        'GOLDEN ROAST SDN. BHD.',
        '75, JALAN SS 22/19, DAMANSARA JAYA, 47400 PJ TEL : 03-7731 8169',
        'Date: 06/03/2018',
        'TOTAL 54.50',
        'CASH 60.00',
      ]).address,
    ).toBe('75, JALAN SS 22/19, DAMANSARA JAYA, 47400 PJ');
    expect(
      extract([
        'PIZZA CORNER SDN BHD',
        'No.12, Jalan Permas Jaya 10,',
        'Bandar Baru Permas Jaya, 81750 Masai',
        'Johor',
        'CARRY OUT NOW Pay By: CASH',
        'Grand Total : 7.20',
      ]).address,
    ).toBe('No.12, Jalan Permas Jaya 10, Bandar Baru Permas Jaya, 81750 Masai Johor');
  });

  it('reads an address that opens with a house number and has no street word', () => {
    const r = extract([
      'THREE FRIENDS CAFE',
      'BISTRO & BAR',
      '109, SS21/1A,',
      'DAMANSARA UTAMA',
      'GST ID : 001661886464',
      'TOTAL 343.95',
      'CASH 350.00',
    ]);
    expect(r.address).toBe('109, SS21/1A, DAMANSARA UTAMA');
  });

  it('does not treat a postcode and town as a registration number', () => {
    const r = extract([
      'SANG KEE RESTAURANT',
      '(001310559-U)',
      '69, JALAN TEMENGGUNG 3/9',
      'BANDAR MAHKOTA CHERAS',
      '43200 CHERAS',
      'TAX INVOICE',
      'Total Incl GST 2.50',
      'Pay Cash 2.50',
    ]);
    expect(r.address).toBe('69, JALAN TEMENGGUNG 3/9 BANDAR MAHKOTA CHERAS 43200 CHERAS');
  });

  it('finds a name with a title before its initials ("MR. D.I.Y. (M) SDN BHD")', () => {
    expect(findOrganisations('MR. D.I.Y. (M) SDN BHD').map((o) => o.name)).toEqual(['MR. D.I.Y. (M) SDN BHD']);
  });

  it('takes no company from "from" inside a sentence', () => {
    const r = extract([
      'VIVA MARKETING SDN BHD (1070687-M)',
      '14 JALAN MANIS 4 TAMAN SEGAR 56100 KL',
      'Rounded Total (RM): 18.80',
      'Cash 20.00 Change 1.20',
      'Exchange is done within 7 days from date of receipt in good condition',
    ]);
    expect(r.company).toBe('VIVA MARKETING SDN BHD');
    expect(r.total).toBe(18.8);
  });

  it('skips a date inside a phone number; reads a French receipt in dirhams', () => {
    const r = extract([
      'RELAIS AUTOROUTE',
      'AUTOROUTE RABAT MEKNES',
      '15000 KHEMISSET',
      'Tel. : 05.22.95.66.66',
      'le 30/03/2018 a 12:36',
      'CAFE CREME 12.00 2 24.00',
      'Total Facture : 56.00 DH.',
      'REGLE PAR ESPECE 56.00 DH',
    ]);
    expect(r.date).toBe('2018-03-30');
    expect(r.total).toBe(56);
  });

  it('takes the total after tax and rounding, not the subtotal; "Amt Due" is a total', () => {
    expect(
      extract([
        'ROAST HOUSE SDN BHD',
        'Total Sales (Excluding GST) 51.42',
        'Total GST 3.08',
        'Rounding 0.00',
        'Total Sales (Inclusive of GST) 54.50',
        'CASH 60.00',
        'CHANGE 5.50',
      ]).total,
    ).toBe(54.5);
    expect(extract(['KIARA CAFE SDN BHD', 'Sub Total 120.00', 'Service Charge 9.30', 'Amt Due 129.30']).total).toBe(
      129.3,
    );
  });

  it('reads a name printed over three lines, its bracket opened on one line and closed on the next', () => {
    const r = extract([
      'LIM KEE HARDWARE',
      'TRADING (BUKIT',
      'INDAH) SDN BHD',
      '123456-X',
      'NO. 8-G, JALAN BUKIT INDAH 3,',
      '81200 JOHOR BAHRU,',
      'TEL: 07-1234567',
      'TOTAL 12.00',
      'CASH 20.00',
      'CHANGE 8.00',
    ]);
    expect(r.company).toBe('LIM KEE HARDWARE TRADING (BUKIT INDAH) SDN BHD');
    expect(r.address).toBe('NO. 8-G, JALAN BUKIT INDAH 3, 81200 JOHOR BAHRU,');
  });

  it('keeps a complete legal name on its own line apart from the slogan or brand printed over it', () => {
    const r = extract([
      'FLAME GRILLED GOODNESS',
      'Harbour Chicken Malaysia Sdn Bhd',
      '(123456-A)',
      'Unit 3, Ground Floor, No.1 Jalan Kiara,',
      '50480 Kuala Lumpur',
      'TOTAL 30.00',
      'CASH 30.00',
    ]);
    expect(r.company).toBe('Harbour Chicken Malaysia Sdn Bhd');
  });

  it('finds the address under a name printed over two lines, after a branch line that is no address', () => {
    const r = extract([
      'KENANGA BOOKS',
      'KENANGA TRADING SDN BHD (55555-V)',
      'Kepong Outlet',
      'NO.7, JLN MELATI 2, TAMAN MELATI,',
      '53100 KUALA LUMPUR.',
      'TEL: 03-4100 2000',
      'TOTAL 8.00',
      'CASH 10.00',
      'CHANGE 2.00',
    ]);
    expect(r.company).toBe('KENANGA BOOKS');
    expect(r.address).toBe('NO.7, JLN MELATI 2, TAMAN MELATI, 53100 KUALA LUMPUR.');
  });

  it('ends the address where a document title shares its last line', () => {
    const r = extract([
      'SERI MAJU SDN BHD',
      '5, JALAN KEMPAS 2,',
      '81200 JOHOR BAHRU, JOHOR TAX INVOICE',
      'TOTAL 5.00',
      'CASH 5.00',
    ]);
    expect(r.address).toBe('5, JALAN KEMPAS 2, 81200 JOHOR BAHRU, JOHOR');
  });

  it('reads a street line with a French road word (route, autoroute, quai) as the address start', () => {
    const r = extract([
      'RELAIS DES PINS',
      'ROUTE DE TANGER KM 12',
      '90000 TANGER',
      'Total : 18.00 DH',
      'REGLE PAR ESPECES 18.00 DH',
    ]);
    expect(r.address).toBe('ROUTE DE TANGER KM 12 90000 TANGER');
  });

  it('reads an amount after a time-like figure as no time ("No.12A, Jln 521.60" is an address line)', () => {
    const r = extract([
      'PUSAT BUKU SDN BHD',
      'No.12A, Jln 521.60 Kepong',
      '52100 Kuala Lumpur.',
      'TOTAL 8.00',
      'CASH 10.00',
    ]);
    expect(r.address).toBe('No.12A, Jln 521.60 Kepong 52100 Kuala Lumpur.');
  });

  it('opens the address with a branch line, the shop name and its place, printed over the street', () => {
    const r = extract([
      'TAX INVOICE',
      'CORNER PIZZA',
      'GST REG NO : 001122334455',
      'CORNER PIZZA BUKIT MOLEK',
      'NO.9, JALAN MOLEK 1/2,',
      'TAMAN MOLEK, 81100 JOHOR BAHRU',
      'TOTAL 31.80',
      'PAY BY: CASH',
    ]);
    expect(r.company).toBe('CORNER PIZZA');
    expect(r.address).toBe('CORNER PIZZA BUKIT MOLEK NO.9, JALAN MOLEK 1/2, TAMAN MOLEK, 81100 JOHOR BAHRU');
  });

  it('joins a name to its legal form on the next line also under a logo read as several lines', () => {
    const r = extract([
      '7 /',
      'od U',
      'Grill:',
      'FLAME-GRILLED CHICKEN',
      "Rocky's Grillhouse Malaysia",
      'Sdn Bhd',
      '(123456-A)',
      'Unit 3, Ground Floor, No.1 Jalan Kiara,',
      '50480 Kuala Lumpur',
      'TOTAL 30.00',
      'CASH 30.00',
    ]);
    expect(r.company).toBe("Rocky's Grillhouse Malaysia Sdn Bhd");
  });
});

describe('totals whose currency OCR misread and glued to the amount ("fM1.00" for "RM1.00")', () => {
  const total = (lines: string[]) => {
    const text = lines.join('\n\n');
    const out = localExtract({ segments: [seg(text)] }, SCHEMA);
    const c = out.citations.find((x) => x.path === '/total');
    if (out.jsonResult.total !== null && out.jsonResult.total !== undefined) {
      expect(text.includes(c!.quote)).toBe(true);
      expect(findAmounts(c!.quote, { glued: true }).some((a) => a.value === out.jsonResult.total)).toBe(true);
    }
    return out.jsonResult.total;
  };

  it('reads an amount glued to 1-3 letters in glued mode only, never a quantity or an id', () => {
    expect(findAmounts('Total fM1.00', { glued: true }).map((a) => a.value)).toEqual([1]);
    expect(findAmounts('TOTAL: aRN12.50', { glued: true }).map((a) => a.value)).toEqual([12.5]);
    expect(findAmounts('Total fM1.00')).toEqual([]);
    // A quantity, an id glued to a word, a code without decimals: not amounts.
    expect(findAmounts('2 x2.50 5.00', { glued: true }).map((a) => a.value)).toEqual([5]);
    expect(findAmounts('Invoice12.50', { glued: true })).toEqual([]);
    expect(findAmounts('Ref AB1234', { glued: true })).toEqual([]);
    // A currency already read stays one amount with its currency.
    expect(findAmounts('Total RM1.00', { glued: true }).map((a) => [a.value, a.currency])).toEqual([[1, 'MYR']]);
  });

  it('takes a glued amount on a total line, and on the line after a total label alone', () => {
    expect(
      total(['KEDAI MAJU SDN BHD', 'SUB TOTAL 11.80', 'SST 6% 0.70', 'Total fM12.50', 'CASH 20.00', 'CHANGE 7.50']),
    ).toBe(12.5);
    expect(total(['KEDAI MAJU SDN BHD', 'Item 1 3.20', 'TOTAL', 'fM3.20', 'CASH 10.00', 'CHANGE 6.80'])).toBe(3.2);
  });

  it('reads no glued amount on other lines (a cash line with a glued figure is not the total)', () => {
    expect(total(['KEDAI MAJU SDN BHD', 'Item 1 3.20', 'TOTAL 3.20', 'CASH fM9.00'])).toBe(3.2);
  });
});
