import { layoutPage } from '../src/layout/page-layout';
import { emptyGraphics } from '../src/parse/ocr-page';
import type { TextRun } from '../src/types';

/** One run per line of text at (x, baseline), Helvetica-ish width of 0.5 em per character. */
function run(text: string, x: number, baseline: number, size = 10, bold = false): TextRun {
  return {
    text,
    x0: x,
    x1: x + text.length * size * 0.5,
    y0: baseline - 0.8 * size,
    y1: baseline + 0.2 * size,
    baseline,
    size,
    bold,
    italic: false,
    mono: false,
  };
}

const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i}`).join(' ');

describe('layoutPage', () => {
  it('reads two columns column by column after a full-width title', () => {
    const runs: TextRun[] = [run('A Study of Column Reading Order', 72, 80, 20, true)];
    for (let i = 0; i < 12; i++) {
      runs.push(run(words(6, `left${i}w`).slice(0, 45), 72, 130 + i * 12));
      runs.push(run(words(6, `right${i}w`).slice(0, 45), 320, 130 + i * 12));
    }
    const els = layoutPage({ width: 612, height: 792, runs, graphics: emptyGraphics(), source: 'text' });
    expect(els[0]).toMatchObject({ type: 'title', text: 'A Study of Column Reading Order' });
    const body = els
      .slice(1)
      .map((e) => e.text)
      .join(' ');
    expect(body.indexOf('left11w')).toBeGreaterThan(0);
    expect(body.indexOf('left11w')).toBeLessThan(body.indexOf('right0w'));
    expect(els.filter((e) => e.type === 'text')).toHaveLength(2);
  });

  it('finds headings, list items, and running heads/feet', () => {
    const runs: TextRun[] = [
      run('Annual Report 2024', 200, 40, 9),
      run('1 Introduction', 72, 120, 10, true),
      run('This paragraph introduces the topic with enough words to look like body text,', 72, 140),
      run('and continues on a second line so it forms a block of prose in the flow.', 72, 152),
      run('•', 80, 172),
      run('first bullet point item', 92, 172),
      run('•', 80, 186),
      run('second bullet point item', 92, 186),
      run('12', 300, 760, 9),
    ];
    const els = layoutPage({ width: 612, height: 792, runs, graphics: emptyGraphics(), source: 'text' });
    expect(els.map((e) => e.type)).toEqual(['page_header', 'heading', 'text', 'list_item', 'list_item', 'page_footer']);
    expect(els[3]!.text).toBe('• first bullet point item');
  });

  it('builds a table from aligned text columns without rulings', () => {
    const runs: TextRun[] = [run('Intro text that sits above the table and is long enough to be prose.', 72, 90)];
    const rows = [
      ['Region', 'Units', 'Revenue'],
      ['North', '120', '4,500'],
      ['South', '95', '3,100'],
      ['East', '143', '5,020'],
      ['West', '88', '2,950'],
    ];
    rows.forEach((r, i) => r.forEach((t, c) => runs.push(run(t, 72 + c * 120, 130 + i * 14, 10, i === 0))));
    const els = layoutPage({ width: 612, height: 792, runs, graphics: emptyGraphics(), source: 'text' });
    const table = els.find((e) => e.type === 'table')!;
    expect(table.table).toMatchObject({ rows: 5, cols: 3, cellsSource: 'projection' });
    const at = (r: number, c: number) => table.table!.cells.find((x) => x.row === r && x.col === c)?.text;
    expect([at(0, 0), at(2, 1), at(4, 2)]).toEqual(['Region', '95', '2,950']);
    expect(table.table!.cells.filter((c) => c.isHeader).map((c) => c.text)).toEqual(['Region', 'Units', 'Revenue']);
    expect(els[0]!.type).toBe('text');
  });
});
