// Table structure through layoutPage (issue 12.2): ruled headers over unruled bodies, group headers
// over sub-columns, wrapped row labels, wrapped headers, and tables set in a monospaced font.
import { layoutPage } from '../src/layout/page-layout';
import { emptyGraphics } from '../src/parse/ocr-page';
import type { LayoutElement, Ruling, TextRun } from '../src/types';
import { run } from './helpers/runs';

/** A run right-aligned at x1. */
const rrun = (text: string, x1: number, baseline: number, size = 8, mono = false) =>
  run(text, x1 - text.length * size * 0.5, baseline, size, mono);
const h = (y: number, x0: number, x1: number): Ruling => ({ x0, x1, y0: y, y1: y });
const v = (x: number, y0: number, y1: number): Ruling => ({ x0: x, x1: x, y0, y1 });

function layout(runs: TextRun[], hRules: Ruling[] = [], vRules: Ruling[] = []) {
  const graphics = { ...emptyGraphics(), hRules, vRules };
  return layoutPage({ width: 612, height: 792, runs, graphics, source: 'text' });
}
const tablesOf = (els: LayoutElement[]) => els.filter((e) => e.type === 'table').map((e) => e.table!);
const grid = (t: NonNullable<LayoutElement['table']>) => {
  const g: string[][] = Array.from({ length: t.rows }, () => Array<string>(t.cols).fill(''));
  for (const c of t.cells) g[c.row]![c.col] = c.text;
  return g;
};

describe('table structure', () => {
  it('splits an unruled body under a ruled header into its text rows', () => {
    // Column rules from top to bottom; row rules only around the header and above the total.
    const names = ['Bulgaria', 'Cyprus', 'Estonia', 'Hungary', 'Latvia', 'Malta', 'Poland'];
    const runs = [run('Country', 106, 555), run('Fund', 196, 555), run('Other', 295, 555)];
    names.forEach((n, i) => {
      const y = 568 + i * 12.7;
      runs.push(run(n, 106, y), run(`${i + 1}.5`, 196, y), run(`${i + 2}.25`, 295, y));
    });
    const yTotal = 568 + names.length * 12.7 + 2;
    runs.push(run('TOTAL', 106, yTotal), run('58.9', 196, yTotal), run('86.7', 295, yTotal));
    const top = 545,
      bottom = yTotal + 4;
    const hRules = [h(top, 100, 400), h(558, 100, 400), h(yTotal - 9, 100, 400), h(bottom, 100, 400)];
    const vRules = [100, 190, 289, 400].map((x) => v(x, top, bottom));
    const [t] = tablesOf(layout(runs, hRules, vRules));
    expect(t).toBeDefined();
    expect(t!.rows).toBe(names.length + 2);
    const g = grid(t!);
    expect(g[1]).toEqual(['Bulgaria', '1.5', '2.25']);
    expect(g[names.length]).toEqual(['Poland', '7.5', '8.25']);
    expect(g[names.length + 1]).toEqual(['TOTAL', '58.9', '86.7']);
  });

  it('keeps the lines of a wrapped ruled header in one row', () => {
    // The header band (between two rules) holds three lines of text in every column; the body is
    // one text row per ruled row.
    const runs = [run('per capita', 150, 110), run('Number of', 250, 110), run('Retail', 350, 110)];
    runs.push(run('GNP ($000)', 150, 119), run('outlets', 250, 119), run('sales', 350, 119));
    runs.push(run('1995', 150, 128), run('(000)', 250, 128), run('(Ecu bn)', 350, 128));
    const body = [
      ['Germany', '27.5', '415.3', '373'],
      ['France', '25.0', '343.4', '292'],
      ['UK', '18.7', '289.9', '233'],
    ];
    body.forEach((r, i) => r.forEach((t, c) => runs.push(run(t, 80 + (c ? 70 + (c - 1) * 100 : 0), 145 + i * 14))));
    const ys = [100, 132, 148, 162, 176];
    const hRules = ys.map((y) => h(y, 75, 440));
    const vRules = [75, 145, 245, 345, 440].map((x) => v(x, 100, 176));
    const [t] = tablesOf(layout(runs, hRules, vRules));
    expect(t!.rows).toBe(4);
    const g = grid(t!);
    expect(g[0]).toEqual(['', 'per capita GNP ($000) 1995', 'Number of outlets (000)', 'Retail sales (Ecu bn)']);
    expect(g[3]).toEqual(['UK', '18.7', '289.9', '233']);
  });

  it('splits a ruled column into the sub-columns under its group header', () => {
    // Rules only between the groups; "Male" and "Female" share one ruled column under their group
    // header, which crosses the gap between them.
    const runs = [run('Age', 74, 123), run('White, non-Hispanic', 180, 123), run('Black, non-Hispanic', 315, 123)];
    runs.push(run('Male', 176, 137), run('Female', 236, 137), run('Male', 311, 137), run('Female', 371, 137));
    const ages = ['1-2', '3-5', '6-11', '12-19', '20-29', '30-39', '40-49', '50-59', '60-69'];
    ages.forEach((a, i) => {
      const y = 151 + i * 13.2;
      runs.push(run(a, 74, y), rrun(`${i + 1},${100 + i}`, 200, y), rrun(`${i + 2},${200 + i}`, 260, y));
      runs.push(rrun(`${i + 3},${300 + i}`, 335, y), rrun(`${i + 4},${400 + i}`, 395, y));
    });
    const bottom = 151 + ages.length * 13.2;
    const vRules = [72, 143, 279, 410].map((x) => v(x, 112, bottom));
    const hRules = [h(112, 72, 410), h(bottom, 72, 410)];
    const [t] = tablesOf(layout(runs, hRules, vRules));
    expect(t!.cols).toBe(5);
    const white = t!.cells.find((c) => c.text === 'White, non-Hispanic')!;
    expect([white.row, white.col, white.colSpan]).toEqual([0, 1, 2]);
    const g = grid(t!);
    expect(g[1]).toEqual(['', 'Male', 'Female', 'Male', 'Female']);
    expect(g[2]).toEqual(['1-2', '1,100', '2,200', '3,300', '4,400']);
  });

  it('joins a wrapped row label into its row', () => {
    const runs = [run('Characteristic', 50, 100), rrun('Total', 200, 100), rrun('Share', 260, 100)];
    const body: Array<[string, number, string?, string?]> = [
      ['Race', 44],
      ['White', 50, '78,744', '(4.0)'],
      ['Hispanic', 50, '12,609', '(7.7)'],
      ['American Indian/', 50, '707', '(7.2)'],
      ['Alaska Native', 52, undefined, undefined],
      ['Other', 50, '4,050', '(4.3)'],
      ['Income', 44],
      ['Low', 50, '46,912', '(9.4)'],
      ['High', 50, '31,137', '(2.1)'],
    ];
    let y = 112;
    for (const [label, x, a, b] of body) {
      // A wrapped line sits 9 pt under its first line; rows are 12 pt apart.
      y += label === 'Alaska Native' ? 9 : 12;
      runs.push(run(label, x, y));
      if (a) runs.push(rrun(a, 200, y), rrun(b!, 260, y));
    }
    const [t] = tablesOf(layout(runs));
    expect(t).toBeDefined();
    const g = grid(t!);
    const labels = g.map((r) => r[0]);
    expect(labels).toContain('American Indian/ Alaska Native');
    expect(labels).not.toContain('Alaska Native');
    expect(labels).toContain('Income');
    const row = g.find((r) => r[0] === 'American Indian/ Alaska Native')!;
    expect(row.slice(1)).toEqual(['707', '(7.2)']);
  });

  it('keeps a header centred over short row labels in the labels column', () => {
    const runs = [run('Species', 110, 120), run('Criterion', 250, 120)];
    ['Mink', 'Otter', 'Kingfisher', 'Osprey', 'Eagle'].forEach((n, i) =>
      runs.push(run(n, 62, 134 + i * 13), rrun(String(1000 + 37 * i), 290, 134 + i * 13)),
    );
    const [t] = tablesOf(layout(runs));
    expect(t!.cols).toBe(2);
    const g = grid(t!);
    expect(g[0]).toEqual(['Species', 'Criterion']);
    expect(g[3]).toEqual(['Kingfisher', '1074']);
  });

  it('finds a table set in a monospaced font and leaves a monospaced code listing alone', () => {
    const table = [run('Proportion', 72, 132, 10, true)];
    ['1.0', '1.1', '1.2', '1.3'].forEach((t, c) => table.push(rrun(t, 250 + c * 40, 132, 10, true)));
    ['0.99', '0.95', '0.90', '0.85', '0.80', '0.75'].forEach((p, r) => {
      const y = 146 + r * 12.7;
      table.push(run(p, 72, y, 10, true));
      [800, 880, 960, 1040].forEach((n, c) =>
        table.push(rrun(String(Math.round(n / (r + 1))), 250 + c * 40, y, 10, true)),
      );
    });
    const [t] = tablesOf(layout(table));
    expect(t).toBeDefined();
    expect(t!.cols).toBe(5);
    expect(grid(t!)[1]).toEqual(['0.99', '800', '880', '960', '1040']);

    const code = ['for (const x of xs) {', '  if (x > max) {', '    max = x;', '  }', '}'].flatMap((l, i) => [
      run(l.trim(), 72 + (l.length - l.trimStart().length) * 5, 132 + i * 12, 10, true),
      run(`// step ${i}`, 300, 132 + i * 12, 10, true),
    ]);
    expect(tablesOf(layout(code))).toEqual([]);
  });

  it('reads a typewritten page as prose with its figure tables, and keeps code there code', () => {
    // A plain-text report: the body itself is monospaced, so monospace alone says nothing.
    const prose = [
      'Following are proportions based on the 1980 Census that should',
      'be used in analyses consisting of age groups 20 years and older',
      '(see table A.1 for the age distribution, and table A.2 for the',
      'counts by single year of age in Appendix A), as described here.',
    ].map((l, i) => run(l, 72, 100 + i * 12, 10, true));
    const table = [run('Age Group', 72, 170, 10, true), run('Proportion', 180, 170, 10, true)];
    ['20-29', '30-39', '40-49', '50-59', '60-74', '75 +'].forEach((g, r) => {
      table.push(run(g, 72, 190 + r * 12, 10, true), run(`0.${2834 - 150 * r}`, 192, 190 + r * 12, 10, true));
    });
    const code = ['for (i = 0; i < n; i++) {', '  total += w[i];', '}', 'return total;'].map((l, i) =>
      run(l.trim(), 72 + (l.length - l.trimStart().length) * 5, 300 + i * 12, 10, true),
    );
    const els = layout([...prose, ...table, ...code]);
    const [t] = tablesOf(els);
    expect(t).toBeDefined();
    expect(grid(t!)[0]).toEqual(['Age Group', 'Proportion']);
    expect(grid(t!)[1]).toEqual(['20-29', '0.2834']);
    expect(els.find((e) => e.text.startsWith('Following'))?.type).toBe('text');
    expect(els.find((e) => e.text.startsWith('for (i'))?.type).toBe('code');
  });
});
