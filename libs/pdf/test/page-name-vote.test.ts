// A letterhead's name read one letter off the spelling the page's other mentions agree on
// (page-name-vote.ts; issue 23: "SANYO STATIONERY SHOP" above "SANYU SUPPLY SDN BHD" and
// "Sanyu.Stationery"): mended only when two other sure readings agree and outnumber its own.
import { ocrRows } from '../src/ocr/ocr-layout';
import { mendNamesByVote } from '../src/ocr/page-name-vote';
import { ocrPage } from './helpers/ocr-words';

const vote = (rows: string[]) => {
  const r = mendNamesByVote(ocrPage(rows, { conf: 95 }), 1);
  return { rows: ocrRows(r.words).map((x) => x.text), fixes: r.fixes };
};
const FOOTER = ['Thank you', 'Total 4.50', 'Cash 5.00', 'Change 0.50', 'Date 06/07/2017', 'Items 1', 'Counter 2'];

describe('a letterhead name mended by the spelling the page repeats', () => {
  it('takes the spelling two sure mentions agree on, in its own case, and reports it', () => {
    const r = vote([
      'SANYO STATIONERY SHOP',
      'Owned By',
      'SANYU SUPPLY SDN BHD',
      ...FOOTER,
      'Facebook : Sanyu.Stationery',
    ]);
    expect(r.rows[0]).toBe('SANYU STATIONERY SHOP');
    expect(r.rows[2]).toBe('SANYU SUPPLY SDN BHD');
    expect(r.fixes).toEqual([{ from: 'SANYO', to: 'SANYU', page: 1 }]);
  });

  it('keeps the reading when one mention disagrees, the mentions are unsure, or tie with it', () => {
    const one = ['SANYO STATIONERY SHOP', 'SANYU SUPPLY SDN BHD', ...FOOTER];
    expect(vote(one).rows[0]).toBe('SANYO STATIONERY SHOP');
    const unsure = ['SANYO STATIONERY SHOP', 'SANYU@80 SUPPLY SDN BHD', ...FOOTER, 'Facebook : Sanyu.Stationery@84'];
    expect(vote(unsure).rows[0]).toBe('SANYO STATIONERY SHOP');
    // Printed twice each way: no majority.
    const tie = ['SANYO STATIONERY SHOP', 'SANYU SUPPLY SDN BHD', ...FOOTER, 'sanyo.com Sanyu.Stationery'];
    expect(vote(tie).rows[0]).toBe('SANYO STATIONERY SHOP');
  });

  it('never mends a known word, a short name, or a word below the letterhead', () => {
    // "UTAMA" (an address word) stays beside two "UTARA"; four-letter names are too many things.
    expect(vote(['JALAN UTAMA', 'UTARA TRADING', ...FOOTER, 'UTARA']).rows[0]).toBe('JALAN UTAMA');
    expect(vote(['MAYO CAFE', 'MAYA FOODS', ...FOOTER, 'MAYA']).rows[0]).toBe('MAYO CAFE');
    const below = vote(['KEDAI MAJU', ...FOOTER, 'Cashier: MARIO', 'MARIA', 'MARIA']);
    expect(below.rows.at(-3)).toBe('Cashier: MARIO');
    expect(below.fixes).toEqual([]);
  });

  it('mends a doubtful letterhead word by the same phrase read surely lower down, both neighbours alike', () => {
    const rows = ['ENW Hardwawre@6 Centre (M) Sdn. Bhd.', 'No: G3, Blk G,', ...FOOTER, 'Thank you for shopping at'];
    const r = vote([...rows, 'ENW Hardware Centre (M) Sdn shd']);
    expect(r.rows[0]).toBe('ENW Hardware Centre (M) Sdn. Bhd.');
    expect(r.fixes).toEqual([{ from: 'Hardwawre', to: 'Hardware', page: 1 }]);
    // One neighbour differs (another name sharing a word), or the echo is the less sure: as read.
    expect(vote([...rows, 'ENW Hardware Supply (M) Sdn Bhd']).rows[0]).toBe('ENW Hardwawre Centre (M) Sdn. Bhd.');
    expect(vote([...rows.map((x) => x.replace('@6', '')), 'ENW Hardware@90 Centre']).rows[0]).toBe(
      'ENW Hardwawre Centre (M) Sdn. Bhd.',
    );
  });
});
