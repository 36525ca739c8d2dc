import { layoutPage } from '../src/layout/page-layout';
import { scanGraphics } from '../src/inspect/graphics-scan';
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

  // An included chart (pdflatex \includegraphics of a PDF plot) is one Form XObject: its curves sit
  // in the middle, its tick labels and axis titles around them, all inside the form's BBox.
  const chartPage = (withForm: boolean) => {
    const graphics = emptyGraphics();
    graphics.shapes.push({ x0: 200, y0: 120, x1: 400, y1: 170 }, { x0: 200, y0: 160, x1: 400, y1: 215 });
    if (withForm) graphics.forms = [{ x0: 150, y0: 100, x1: 420, y1: 262 }];
    const runs: TextRun[] = [];
    ['2.050', '2.046', '2.042', '2.038'].forEach((t, i) => runs.push(run(t, 170, 125 + i * 28, 7)));
    runs.push(run('0 200 400 600 800 1000 1200 1400', 200, 235, 7));
    runs.push(run('Inner core radius (km)', 260, 252, 7));
    for (let i = 0; i < 6; i++) runs.push(run(words(12, `body${i}w`).slice(0, 80), 72, 320 + i * 12));
    return layoutPage({ width: 612, height: 792, runs, graphics, source: 'text' });
  };

  it('takes the axis labels of a chart drawn in a form XObject into the figure', () => {
    const els = chartPage(true);
    const fig = els.find((e) => e.type === 'figure');
    expect(fig?.text).toContain('Inner core radius (km)');
    expect(fig?.text).toContain('2.050');
    const flow = els
      .filter((e) => e.type !== 'figure')
      .map((e) => e.text)
      .join(' ');
    expect(flow).not.toMatch(/Inner core radius|2\.050|1400/);
    expect(flow).toContain('body5w');
    // Without the form the same curves make a figure of the plot area only.
    const bare = chartPage(false)
      .filter((e) => e.type !== 'figure')
      .map((e) => e.text)
      .join(' ');
    expect(bare).toContain('Inner core radius');
  });

  it('keeps a many-label chart a figure when its caption label is cut from its number', () => {
    // Tick labels ending at one x (a left axis) make a gutter that cuts "Figure" from "6. a) ...".
    const graphics = emptyGraphics();
    graphics.shapes.push({ x0: 140, y0: 80, x1: 500, y1: 150 }, { x0: 140, y0: 140, x1: 500, y1: 230 });
    graphics.forms = [{ x0: 100, y0: 68, x1: 519, y1: 252 }];
    const runs: TextRun[] = [];
    for (let i = 0; i < 12; i++) runs.push(run(`2.0${50 - 2 * i}`, 111, 80 + i * 13, 6));
    for (let i = 0; i < 6; i++) runs.push(run(`legend entry ${i} mT and a longer label`, 300, 90 + i * 12, 6));
    runs.push(run('0 200 400 600 800 1000 1200 1400', 140, 240, 7));
    runs.push(run('Inner core radius (km)', 260, 250, 7));
    runs.push({ ...run('Figure', 97, 278, 9, true), x1: 127.3 });
    runs.push({ ...run('6.', 134.3, 278, 9, true), x1: 142.6 });
    runs.push(run('a) Obliquity of the mantle, solid lines, and gravity field', 157, 278, 9));
    for (let i = 0; i < 6; i++) runs.push(run(words(12, `body${i}w`).slice(0, 80), 97, 330 + i * 12));
    const els = layoutPage({ width: 612, height: 792, runs, graphics, source: 'text' });
    const flow = els
      .filter((e) => e.type !== 'figure')
      .map((e) => e.text)
      .join(' ');
    expect(flow).not.toMatch(/legend entry|Inner core radius/);
    expect(flow).toContain('Obliquity of the mantle');
  });

  it('records the page extent of a painted form XObject from its BBox and matrix', () => {
    const paintFormXObjectBegin = 74,
      paintFormXObjectEnd = 75;
    const g = scanGraphics(
      {
        fnArray: [paintFormXObjectBegin, paintFormXObjectEnd],
        argsArray: [
          [
            [0.5, 0, 0, 0.5, 100, 200],
            [0, 0, 400, 200],
          ],
          null,
        ],
      },
      [1, 0, 0, -1, 0, 792],
      612,
      792,
    );
    expect(g.forms).toEqual([{ x0: 100, y0: 492, x1: 300, y1: 592 }]);
  });
});
