// Layout rules on small synthetic PDFs (pdf-lib): each test draws the situation the rule is for
// and parses it through parsePages, the way the worker does.
import fs from 'node:fs/promises';
import { degrees } from 'pdf-lib';
import { buildLines, makeLine } from '../src/layout/line-builder';
import { streamTableRegions } from '../src/tables/stream-tables';
import { combine, corpus } from './helpers/fixtures';
import { run } from './helpers/runs';
import { parseSynthetic, proseWords, synthPdf, type Canvas } from './helpers/synthetic';

describe('reading order: column gutters found per band of the page', () => {
  it("never reads across a narrow gutter under a full-width abstract, even when the columns' baselines interleave", async () => {
    const bytes = await synthPdf([
      (c) => {
        c.text('A Narrow Gutter Study', 72, 60, 18, c.bold);
        // A long full-width abstract above the columns: a page-wide gutter count would see it cross.
        for (let i = 0; i < 14; i++) c.justified(proseWords(`abs${i}w`, 16), 72, 540, 90 + i * 12);
        for (let i = 0; i < 24; i++) {
          c.justified(proseWords(`L${i}w`, 8), 72, 300, 280 + i * 12);
          c.justified(proseWords(`R${i}w`, 8), 311, 540, 284 + i * 12); // gutter 11 pt (1.1 em), offset baselines
        }
      },
    ]);
    const { markdown, elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
    for (const line of markdown.split('\n')) expect(/\bL\d+w/.test(line) && /\bR\d+w/.test(line)).toBe(false);
    expect(markdown.indexOf('L23w2')).toBeLessThan(markdown.indexOf('R0w2'));
    expect(markdown.indexOf('abs13w2')).toBeLessThan(markdown.indexOf('L0w2'));
  });

  it('reads two panel captions side by side each on its own, their labels hung into the gutter between them', async () => {
    const bytes = await synthPdf([
      (c) => {
        // Left column: prose with baselines between the captions' (they must not hide the gutter).
        for (let i = 0; i < 12; i++) c.justified(proseWords(`L${i}w`, 8), 40, 292, 140 + i * 10, 9);
        // Right column: two panel captions, 8 pt, a 12 pt gutter; "(b)" touches "(a)"'s first line.
        const left = [
          '(a) Example of an artificial unitA.',
          ...[1, 2, 3, 4, 5].map((k) => `capA${k} words of the first panel`),
        ];
        const right = [
          'A visualization of a capB0 feed-',
          ...[1, 2, 3, 4].map((k) => `capB${k} words of the second panel`),
        ];
        c.text('(a)', 307.5, 145, 8);
        c.text('Example of an artificial unitA.', 319.6, 145, 8);
        c.text('(b)', 430.9, 145, 8);
        c.text(right[0]!, 443.2, 145, 8);
        left.slice(1).forEach((t, i) => c.justified(t.split(' '), 319.6, 431, 154 + i * 9, 8));
        right.slice(1).forEach((t, i) => c.justified(t.split(' '), 443.5, 552, 154 + i * 9, 8));
        c.text('Fig. 1: Two panels and their captions.', 304, 222, 10);
      },
    ]);
    const { markdown } = await parseSynthetic(bytes);
    for (const line of markdown.split('\n')) expect(/capA\d|unitA/.test(line) && /capB\d/.test(line)).toBe(false);
    expect(markdown.indexOf('capA5')).toBeLessThan(markdown.indexOf('(b) A visualization'));
    // The continuation lines stay with their labelled first line (a hanging indent, not a new paragraph).
    expect(markdown).toMatch(/\(a\) Example of an artificial unitA\. capA1/);
  });

  it('two table captions side by side, one per column, are two captions, not one line read across', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.text(
          'Fig. A.2. Similar to Fig. 1, except that each source is colour-coded by its class, over the page.',
          37,
          360,
          9,
        );
        c.text('Table B.1.', 37, 386, 9, c.bold);
        // The left caption's line ends 11 pt (1.2 em) before the right caption's label.
        const left = 'Best-fit values for the PA relation and its';
        c.text(left, 292 - c.font.widthOfTextAtSize(left, 9), 386, 9);
        c.text('Table B.2.', 303.3, 386, 9, c.bold);
        c.text('Best-fit values for the mass relation and', 345, 386, 9);
        c.text('the form given in Eq. B.1.', 37, 396, 9);
        c.text('its boundaries in the form given in Eq. B.2.', 303.3, 396, 9);
      },
    ]);
    const { markdown } = await parseSynthetic(bytes);
    for (const line of markdown.split('\n')) expect(/PA relation/.test(line) && /Table B\.2/.test(line)).toBe(false);
  });

  it('a line of text turned on its side in the margin (an arXiv stamp) does not break a two-column band', async () => {
    const bytes = await synthPdf([
      (c) => {
        // Top band: a paragraph in each column, then a full-width gap; below, two columns of body
        // text and the stamp in the left margin beside them.
        for (let i = 0; i < 6; i++) c.justified(proseWords(`TL${i}w`, 8), 72, 296, 80 + i * 12);
        for (let i = 0; i < 6; i++) c.justified(proseWords(`TR${i}w`, 8), 316, 540, 80 + i * 12);
        for (let i = 0; i < 30; i++) c.justified(proseWords(`BL${i}w`, 8), 72, 296, 190 + i * 12);
        for (let i = 0; i < 30; i++) c.justified(proseWords(`BR${i}w`, 8), 316, 540, 190 + i * 12);
        c.page.drawText('arXiv:0000.00000v1 [cs.XX] 1 Jan 2000', {
          x: 40,
          y: c.height - 560,
          size: 12,
          font: c.font,
          rotate: degrees(90),
        });
      },
    ]);
    const { markdown } = await parseSynthetic(bytes);
    // The left column is read to its end before the right one, as without the stamp.
    expect(markdown.indexOf('TL5w2')).toBeLessThan(markdown.indexOf('BL0w2'));
    expect(markdown.indexOf('BL29w2')).toBeLessThan(markdown.indexOf('TR0w2'));
    expect(markdown).toContain('arXiv:0000.00000v1');
  });

  it('reads a column to its end when the other column ends earlier (a gap in one column is no horizontal cut)', async () => {
    const bytes = await synthPdf([
      (c) => {
        // A full-width paragraph closes the band above; below it the right column stops at 300
        // while the left column goes on after a gap of its own at 330.
        for (let i = 0; i < 4; i++) c.justified(proseWords(`top${i}w`, 16), 72, 540, 80 + i * 12);
        for (let i = 0; i < 10; i++) c.justified(proseWords(`L${i}w`, 8), 72, 296, 150 + i * 12);
        for (let i = 0; i < 8; i++) c.justified(proseWords(`M${i}w`, 8), 72, 296, 340 + i * 12);
        for (let i = 0; i < 12; i++) c.justified(proseWords(`R${i}w`, 8), 316, 540, 150 + i * 12);
      },
    ]);
    const { markdown } = await parseSynthetic(bytes);
    expect(markdown.indexOf('top3w2')).toBeLessThan(markdown.indexOf('L0w2'));
    expect(markdown.indexOf('L9w2')).toBeLessThan(markdown.indexOf('M0w2'));
    expect(markdown.indexOf('M7w2')).toBeLessThan(markdown.indexOf('R0w2'));
  });

  it('keeps label/value rows (single lines side by side) read across', async () => {
    const bytes = await synthPdf([
      (c) => {
        ['Name', 'Date', 'Place'].forEach((k, i) => {
          c.text(`${k}:`, 72, 80 + i * 30);
          c.text(`value of ${k.toLowerCase()} here`, 300, 80 + i * 30);
        });
      },
    ]);
    const { markdown } = await parseSynthetic(bytes);
    expect(markdown.indexOf('value of name')).toBeLessThan(markdown.indexOf('Date:'));
  });

  it('keeps justified single-column prose (word spaces up to 0.8 em, drawn word by word) in one line flow', async () => {
    const bytes = await synthPdf([
      (c) => {
        for (let i = 0; i < 20; i++) c.justified(proseWords(`p${i}w`, i % 2 ? 17 : 19), 72, 540, 80 + i * 12);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    expect(elements.filter((e) => e.type === 'text')).toHaveLength(1);
  });
});

describe('running heads and feet', () => {
  it('a subscript of a displayed formula near the page foot is body text, not a page footer', async () => {
    const bytes = await synthPdf([
      (c) => {
        for (let i = 0; i < 40; i++) c.justified(proseWords(`b${i}w`, 14), 72, 540, 80 + i * 12);
        c.text('q', 177, 706, 7);
        c.text('= sum of the terms over j', 185, 714, 10);
        c.text('Page footer text', 72, 760, 8);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    const footers = elements.filter((e) => e.type === 'page_footer').map((e) => e.content);
    expect(footers).toEqual(['Page footer text']);
  });

  it("a word hyphenated at the foot of a page is joined with the next page's first body word, not its running head", async () => {
    const head = (c: Canvas, n: number) => {
      c.text('Smith et al.: The period-age relation of variables', 72, 40, 8);
      c.text(`Page ${n} of 3`, 280, 760, 8);
    };
    const bytes = await synthPdf([
      (c) => {
        head(c, 1);
        for (let i = 0; i < 40; i++) c.justified(proseWords(`a${i}w`, 12), 72, 540, 80 + i * 12);
        c.text('The onset in reality is probably sensitive to metallicity, as the data show; it is metallic-', 72, 560);
      },
      (c) => {
        head(c, 2);
        c.text('ity. While the agreement is good, the dependence on metallicity is weak at most.', 72, 80);
        for (let i = 0; i < 40; i++) c.justified(proseWords(`b${i}w`, 12), 72, 540, 104 + i * 12);
      },
      (c) => {
        head(c, 3);
        for (let i = 0; i < 20; i++) c.justified(proseWords(`c${i}w`, 12), 72, 540, 80 + i * 12);
      },
    ]);
    const { markdown, grounding } = await parseSynthetic(bytes);
    expect(markdown).toContain('as the data show; it is metallicity.\n\nWhile the agreement is good');
    const [p1, p2] = grounding.pages;
    const last = p1!.elements.filter((e) => e.type === 'text').pop()!;
    expect(last.content.endsWith('it is metallicity.')).toBe(true);
    expect(markdown).toContain(last.markdown_anchor);
    expect(p2!.elements.find((e) => e.type === 'page_header')?.content).toBe(
      'Smith et al.: The period-age relation of variables',
    );
    const first = p2!.elements.find((e) => e.type === 'text')!;
    expect(first.content.startsWith('While the agreement')).toBe(true);
    expect(markdown).toContain(first.markdown_anchor);
  });

  it('a foot that carries its page number in a phrase is a page footer, so the last body word joins across the break', async () => {
    // The last body line sits a little over one footer line above a small "Article number, page N of M".
    const page = (n: number, words: (c: Canvas) => void) => (c: Canvas) => {
      c.text('A&A proofs: manuscript no. main', 250, 34, 8);
      words(c);
      c.text(`Article number, page ${n} of 2`, n === 1 ? 445 : 40, 722, 8);
    };
    const bytes = await synthPdf([
      page(1, (c) => {
        for (let i = 0; i < 51; i++) c.text(proseWords(`a${i}w`, 14).join(' '), 40, 90 + i * 12);
        c.text('The masers are seen in many lines of the inversion transi-', 40, 702);
      }),
      page(2, (c) => {
        c.text('tions of ammonia; these transitions are masers.', 40, 60);
        for (let i = 0; i < 40; i++) c.text(proseWords(`B${i}w`, 14).join(' '), 40, 72 + i * 12);
      }),
    ]);
    const { markdown, grounding } = await parseSynthetic(bytes);
    for (const p of grounding.pages)
      expect(p.elements.find((e) => e.content.startsWith('Article number'))?.type).toBe('page_footer');
    expect(markdown).toMatch(/of the inversion transitions\s+of ammonia;/);
    expect(markdown).not.toContain('Article number');
  });

  it('a numbered table caption at the top of a page stays a caption; the running head above it stays a header', async () => {
    // p. 9 of arXiv 2201.00021, read in place: "Table A.3. …" sits right under the running head.
    const paper = await fs.readFile(corpus('a_born_digital/pypdf-bench/2201.00021.pdf'));
    const { elements } = await parseSynthetic(await combine([{ bytes: paper, pages: [8] }]));
    expect(elements.find((e) => e.content.startsWith('Table A.3.'))?.type).toBe('caption');
    const headers = elements.filter((e) => e.type === 'page_header').map((e) => e.content);
    expect(headers).toHaveLength(1);
    expect(headers[0]).toMatch(/^Y\. T\. Yan .* et al\.: Discovery of ammonia/);
    expect(elements.find((e) => e.content.startsWith('Article number, page 9'))?.type).toBe('page_footer');
  });

  it('a superscript inside a column paragraph low on the page is not a page footer; the real foot is', async () => {
    // p. 1 of arXiv 2201.00021: "15" (of ¹⁵NH₃) lies inside the left column's last paragraph, 82% down.
    const paper = await fs.readFile(corpus('a_born_digital/pypdf-bench/2201.00021.pdf'));
    const { elements } = await parseSynthetic(await combine([{ bytes: paper, pages: [0] }]));
    const footers = elements.filter((e) => e.type === 'page_footer').map((e) => e.content);
    expect(footers).toEqual(['Article number, page 1 of 10']);
    expect(elements.filter((e) => e.type === 'page_header').map((e) => e.content)).toEqual([
      expect.stringMatching(/^Astronomy & Astrophysics manuscript/),
      '©ESO 2022',
    ]);
  });

  it('a last body paragraph in a small font near the page foot, one that names a page, stays body text', async () => {
    const bytes = await synthPdf([
      (c) => {
        // Small print set apart from the body as far as the footer above is (more than 1.2, under 1.5 lines).
        for (let i = 0; i < 52; i++) c.text(proseWords(`b${i}w`, 14).join(' '), 40, 90 + i * 12);
        c.text(proseWords('n0w', 16).join(' '), 40, 722, 8);
        c.text('The full list of sources is given in the catalogue on page 4.', 40, 731, 8);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    const last = elements.find((e) => e.content.includes('catalogue on page 4'));
    expect(last?.type).toBe('text');
    expect(elements.some((e) => e.type === 'page_footer')).toBe(false);
  });
});

describe('tables need evidence: prose, equations, indexes and figure labels stay out', () => {
  it('a borderless table of short aligned cells is still a table', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('intro', 14), 72, 540, 80);
        const rows = [
          ['Region', 'Units', 'Revenue'],
          ['North', '120', '4,500'],
          ['South', '95', '3,100'],
          ['East', '143', '5,020'],
          ['West', '88', '2,950'],
        ];
        rows.forEach((r, i) =>
          r.forEach((t, k) => c.text(t, 72 + k * 140, 120 + i * 14, 10, i === 0 ? c.bold : c.font)),
        );
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    const tables = elements.filter((e) => e.type === 'table');
    expect(tables).toHaveLength(1);
    expect(tables[0]!.cells!.find((x) => x.row === 2 && x.col === 2)?.text).toBe('3,100');
  });

  it('a ruled header over an unruled body cut by section labels and wider spacing is one table', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('intro', 14), 72, 540, 70);
        const cols = [72, 200, 300, 400, 500];
        c.line(72, 96, 540, 96);
        c.text('Total', 300, 108, 9, c.bold);
        c.text('Public', 450, 108, 9, c.bold);
        ['Year', 'Units', 'All', 'Local', 'State'].forEach((t, k) => c.text(t, cols[k]!, 122, 9, c.bold));
        c.line(72, 128, 540, 128);
        let top = 142;
        const section = (label: string, first: number) => {
          c.text(label, 72, top, 9, c.bold);
          top += 13;
          for (let i = 0; i < 5; i++, top += 13)
            [String(first + i), `${120 + i}`, `${4500 + 17 * i}`, `${2100 + i}`, `${2400 + 16 * i}`].forEach((t, k) =>
              c.text(t, cols[k]!, top, 9),
            );
          top += 14; // the spacing opens up before the next section
        };
        section('Actual', 2001);
        section('Projected', 2011);
        c.justified(proseWords('outro', 14), 72, 540, top + 30);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    const tables = elements.filter((e) => e.type === 'table');
    expect(tables).toHaveLength(1);
    const texts = tables[0]!.cells!.map((x) => x.text);
    for (const t of ['Year', 'Actual', '2001', 'Projected', '2015', '2464']) expect(texts).toContain(t);
  });

  it('two ruled grids one under the other with the same columns stay two tables', async () => {
    const bytes = await synthPdf([
      (c) => {
        for (const [top0, tag] of [
          [90, 'a'],
          [250, 'b'],
        ] as const) {
          const rows = 6;
          for (let r = 0; r <= rows; r++) c.line(72, top0 + r * 18, 472, top0 + r * 18);
          for (const x of [72, 272, 372, 472]) c.line(x, top0, x, top0 + rows * 18);
          for (let r = 0; r < rows; r++)
            [`${tag}label${r}`, `${r * 3}`, `${r * 7}`].forEach((t, k) =>
              c.text(t, [76, 276, 376][k]!, top0 + r * 18 + 13, 9),
            );
        }
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    expect(elements.filter((e) => e.type === 'table')).toHaveLength(2);
  });

  it('a two-column index ("term, page") is text read column by column, not a table', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.text('Index', 72, 60, 16, c.bold);
        for (let i = 0; i < 25; i++) {
          c.text(`Leftterm${i}, ${10 + i}`, 72, 100 + i * 12);
          c.text(`Rightterm${i}, ${50 + i}`, 330, 100 + i * 12);
        }
      },
    ]);
    const { markdown, elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
    expect(markdown.indexOf('Leftterm24')).toBeLessThan(markdown.indexOf('Rightterm0'));
  });

  it('displayed equations with their numbers are not a table', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('before', 14), 72, 540, 80);
        const eqs = ['x = a + b', 'y = α x − c', 'z = x / y + β'];
        eqs.forEach((e, i) => {
          c.text(
            e.replace(/[αβ−]/g, (m) => ({ α: 'a', β: 'b', '−': '-' })[m]!),
            250,
            110 + i * 18,
          );
          c.text(`(${i + 1}${'abc'[i]})`, 510, 110 + i * 18);
        });
        c.justified(proseWords('after', 14), 72, 540, 180);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
  });

  it('displayed fractions numbered only on their main line (the number column otherwise empty) are not a table', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('before', 14), 72, 540, 80);
        // Two equations, each a fraction over three rows: numerator, the relation with its number
        // at the right margin, denominator. Only a third of the rows carry a number.
        ['a', 'b'].forEach((tag, i) => {
          const t = 120 + i * 26;
          c.text('3 n2', 240, t - 7, 8);
          c.text('1', 320, t - 7, 8);
          c.text('phim =', 200, t);
          c.text('G210 es + G201 gs ,', 240, t);
          c.text(`(15${tag})`, 510, t);
          c.text('2 W2', 240, t + 7, 8);
          c.text('2', 320, t + 7, 8);
        });
        c.justified(proseWords('after', 14), 72, 540, 210);
      },
    ]);
    const { markdown, elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
    expect(markdown).toContain('(15b)');
  });

  it('prose beside prose (a text column next to a short-label column) is not a table', async () => {
    const bytes = await synthPdf([
      (c) => {
        for (let i = 0; i < 12; i++) {
          c.text(`[Ref${i}]`, 72, 80 + i * 12);
          c.justified(proseWords(`ref${i}w`, 14), 130, 540, 80 + i * 12);
        }
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
  });

  it('a chart (axes, ticks, grid and a curve, tick labels) is a figure, not a table', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('lead', 14), 72, 540, 80);
        const [x0, y0, x1, y1] = [120, 120, 420, 360];
        c.line(x0, y0, x1, y0);
        c.line(x0, y1, x1, y1);
        c.line(x0, y0, x0, y1);
        c.line(x1, y0, x1, y1);
        for (let k = 1; k < 5; k++) {
          c.line(x0 + k * 60, y0, x0 + k * 60, y1, 0.3);
          c.line(x0, y0 + k * 48, x1, y0 + k * 48, 0.3);
        }
        for (let k = 0; k <= 5; k++) c.text(String(k * 10), x0 + k * 60 - 4, y1 + 12, 8);
        for (let k = 0; k <= 5; k++) c.text(String(k), x0 - 14, y1 - k * 48 + 3, 8);
        c.path(`M ${x0} ${y1} C ${x0 + 80} ${y0 + 10}, ${x0 + 180} ${y1 - 20}, ${x1} ${y0 + 30}`);
        c.path(`M ${x0} ${y0 + 200} L ${x0 + 100} ${y0 + 150} L ${x0 + 200} ${y0 + 170} L ${x1} ${y0 + 60}`);
        c.text('Figure 1. A curve over a grid.', 120, 390);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
    expect(elements.some((e) => e.type === 'figure')).toBe(true);
  });
});

describe('chart legends', () => {
  it('a framed chart whose lattice cells hold only words (panel letter, legend) is a figure, not a table', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('lead', 14), 72, 540, 80);
        const [x0, y0, x1, y1] = [120, 120, 420, 300];
        c.line(x0, y0, x1, y0);
        c.line(x0, y1, x1, y1);
        c.line(x0, y0, x0, y1);
        c.line(x1, y0, x1, y1);
        c.line(x0 + 150, y0, x0 + 150, y1, 0.3);
        c.line(x0, y0 + 60, x1, y0 + 60, 0.3);
        c.line(x0, y0 + 120, x1, y0 + 120, 0.3);
        c.text('a', x0 + 10, y0 + 30, 9);
        c.text('fluid', x0 + 10, y0 + 90, 9);
        c.text('core density', x0 + 160, y0 + 90, 9);
        c.text('mantle', x0 + 10, y0 + 150, 9);
        c.text('density', x0 + 160, y0 + 150, 9);
        c.path(`M ${x0} ${y1} C ${x0 + 80} ${y0 + 10}, ${x0 + 180} ${y1 - 20}, ${x1} ${y0 + 30}`);
        c.path(`M ${x0} ${y0 + 150} L ${x0 + 100} ${y0 + 100} L ${x0 + 200} ${y0 + 120} L ${x1} ${y0 + 40}`);
        c.text('Figure 2. Densities against radius.', 120, 330);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
    expect(elements.some((e) => e.type === 'figure')).toBe(true);
  });
});

/**
 * Two columns of ragged prose (lines of varied length, no aligned word edges) from 100 pt down the
 * page: the left one's lines to 328 pt, the right one's from 112 pt, leaving a line for each to end or start.
 */
function twoColumns(c: Canvas) {
  const words = 'the model shows that with data which has been used over a measured range of values'.split(' ');
  const line = (k: number) => words.slice(k % 5, (k % 5) + 3 + ((k * 3) % 4)).join(' ');
  for (let i = 0; i < 20; i++) {
    c.text(`${line(i)} L${i}w.`, 72, 100 + i * 12);
    c.text(`${line(i + 2)} R${i}w.`, 316, 112 + i * 12);
  }
}

describe('glyphs and text written once', () => {
  it('a spanning header cell is written once in the markdown table', async () => {
    const bytes = await synthPdf([
      (c) => {
        const [x0, x1, top] = [72, 432, 100];
        const xs = [x0, 192, 312, x1];
        const ys = [top, top + 18, top + 36, top + 54, top + 72];
        for (const y of ys) c.line(x0, y, x1, y);
        for (const x of [x0, x1]) c.line(x, ys[0]!, x, ys[4]!);
        c.line(xs[1]!, ys[0]!, xs[1]!, ys[4]!);
        c.line(xs[2]!, ys[1]!, xs[2]!, ys[4]!); // no rule between the two right columns in row 0
        c.text('Item', 80, top + 13);
        c.text('Quarterly results', 250, top + 13);
        [
          ['North', '120', '4,500'],
          ['South', '95', '3,100'],
          ['East', '143', '5,020'],
        ].forEach((r, i) => r.forEach((t, k) => c.text(t, xs[k]! + 8, ys[i + 1]! + 13)));
      },
    ]);
    const { markdown, elements } = await parseSynthetic(bytes);
    const table = elements.find((e) => e.type === 'table')!;
    expect(table.cells!.find((x) => x.text === 'Quarterly results')).toMatchObject({ row: 0, colSpan: 2 });
    expect(markdown.split('Quarterly results')).toHaveLength(2);
    expect(markdown).toMatch(/\| Item \| Quarterly results \|\s*\|/);
  });

  it('text drawn twice a fraction of a point apart (fake bold) is kept once, in prose and in table cells', async () => {
    const bytes = await synthPdf([
      (c) => {
        for (const dx of [0, 0.4]) c.text('Totals are drawn twice to look bold here.', 72 + dx, 80, 10, c.font);
        const rows = [
          ['Year', 'Sales'],
          ['2021', '11,062.6'],
          ['2022', '12,310.4'],
          ['2023', '13,001.9'],
        ];
        rows.forEach((r, i) =>
          r.forEach((t, k) => {
            for (const dx of [0, 0.35]) c.text(t, 72 + k * 150 + dx, 120 + i * 14);
          }),
        );
      },
    ]);
    const { markdown, elements } = await parseSynthetic(bytes);
    expect(markdown.split('Totals are drawn twice').length).toBe(2);
    const table = elements.find((e) => e.type === 'table')!;
    expect(table.cells!.find((x) => x.row === 1 && x.col === 1)?.text).toBe('11,062.6');
  });

  it('accents drawn as glyphs of their own are attached to their letter; ligatures become letters', async () => {
    const bytes = await synthPdf([
      (c) => {
        // "e" with an acute drawn above it as a separate glyph, and a macron over "a".
        const w = c.text('Caf', 72, 80, 12);
        const e = c.text('e', 72 + w, 80, 12);
        c.text('\u00B4', 72 + w + 1, 78, 12);
        c.text(' menu with the letter', 72 + w + e, 80, 12);
        const w2 = c.text('Stress ', 72, 110, 12);
        c.text('a', 72 + w2, 110, 12);
        c.text('\u00AF', 72 + w2 + 0.5, 108, 12);
        c.text(' is long.', 72 + w2 + 6.7, 110, 12);
      },
    ]);
    const { markdown } = await parseSynthetic(bytes);
    expect(markdown).toContain('Café menu');
    expect(markdown).toContain('Stress ā is long.');
    expect(markdown).not.toMatch(/[\u00B4\u00AF]/);
  });

  it('an accent that ends a run, with its letter drawn back under it as a run of its own, goes on that letter', async () => {
    const bytes = await synthPdf([
      (c) => {
        // TeX's \tilde{n}: the accent is the last glyph of the sentence's run; the pen moves back
        // and draws the letter beneath it, then the sentence goes on.
        const w = c.text('As such, \u02DC', 72, 80, 10);
        const n = c.text('n', 72 + w - 5, 80, 10);
        c.text(' corresponds to the observed value.', 72 + w - 5 + n, 80, 10);
        // A tilde with no letter under it stays as it is.
        c.text('About \u02DC 3 units.', 72, 100, 10);
      },
    ]);
    const { markdown } = await parseSynthetic(bytes);
    expect(markdown).toContain('As such, \u00F1 corresponds to the observed value.');
    expect(markdown).toContain('About \u02DC 3 units.');
  });

  it('glyphs overstruck on the same baseline stay in their line (TeX draws ≠ as "6" over "=")', async () => {
    const bytes = await synthPdf([
      (c) => {
        const w = c.text('For n ', 72, 80, 10);
        c.text('6', 72 + w, 80, 10);
        const eq = c.text('=', 72 + w, 80, 10);
        c.text(' m the spaces differ.', 72 + w + eq, 80, 10);
      },
    ]);
    const { markdown } = await parseSynthetic(bytes);
    expect(markdown).toContain('For n 6= m the spaces differ.');
  });

  it('hyphens at line ends: joined inside a column, kept for compounds the page spells with a hyphen', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.text('The period-age relation is studied with care and the imple-', 72, 80);
        c.text('mentation follows; the period-', 72, 92);
        c.text('age relation holds for C-', 72, 104);
        c.text('rich stars too.', 72, 116);
      },
    ]);
    const { markdown } = await parseSynthetic(bytes);
    expect(markdown).toContain('implementation follows; the period-age relation holds for C-rich stars too.');
  });

  it('a word hyphenated at the foot of the left column, or of a list item before a table, is joined with the body text that goes on', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.text('Column Joins', 72, 60, 18, c.bold);
        twoColumns(c);
        c.text('The onset is sensitive to metal-', 72, 340);
        c.text('licity. While the agreement is good, it is weak.', 316, 100);
      },
      (c) => {
        // A list item whose last word goes on in the paragraph under it, as definitions in a book do.
        c.text('Definition 29', 72, 80, 10, c.bold);
        c.text('a) X is called differentiable of class Ck when every chart', 90, 100);
        c.text(
          'b) Y is called smooth when every change of chart is smooth and its inverse is, and every trans-',
          90,
          114,
        );
        // A ruled table set into the paragraph, the paragraph going on under it.
        for (let r = 0; r <= 4; r++) c.line(72, 140 + r * 18, 472, 140 + r * 18);
        for (const x of [72, 272, 372, 472]) c.line(x, 140, x, 212);
        for (let r = 0; r < 4; r++)
          [`chart${r}`, `${r * 3}`, `${r * 7}`].forEach((t, k) => c.text(t, [76, 276, 376][k]!, 140 + r * 18 + 13, 9));
        c.text('ition map is too. This holds for every atlas of the space.', 72, 230);
      },
    ]);
    const { markdown, grounding } = await parseSynthetic(bytes);
    expect(markdown).toContain('The onset is sensitive to metallicity.');
    expect(markdown).toContain('While the agreement is good');
    expect(markdown).toMatch(/and every transition\n\n\|[^]*\|\n\nmap is too\./);
    expect(markdown).not.toMatch(/metal-|trans-/);
    // Each element keeps its box; the word moved to the element where it starts, in markdown too.
    const els = grounding.pages[0]!.elements;
    const left = els.find((e) => e.content.endsWith('sensitive to metallicity.'))!;
    const right = els.find((e) => e.content.startsWith('While the agreement'))!;
    expect(left.bbox.x2).toBeLessThan(0.5);
    expect(right.bbox.x1).toBeGreaterThan(0.5);
    for (const e of els) expect(markdown).toContain(e.markdown_anchor);
    const def = grounding.pages[1]!.elements;
    expect(def.find((e) => e.type === 'list_item' && e.content.endsWith('and every transition'))).toBeDefined();
    expect(def.find((e) => e.type === 'text' && e.content.startsWith('map is too.'))).toBeDefined();
    expect(def.map((e) => e.type)).toContain('table');
  });

  it('a compound hyphenated at a block end keeps its hyphen when the page spells it so; a dash list is not glued on', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.text('The well-known result is used below.', 72, 60);
        twoColumns(c);
        c.text('The bound we use is well-', 72, 340);
        c.text('known to hold for every case we met.', 316, 100);
        c.text('The winds that blow here in the cold months of the year come mostly from the north-', 72, 400);
        c.text('- east of the bay in winter', 72, 420);
        c.text('- west of the bay in summer', 72, 434);
      },
    ]);
    const { markdown, elements } = await parseSynthetic(bytes);
    expect(markdown).toContain('The bound we use is well-known\n\nto hold for every case we met.');
    expect(markdown).not.toContain('wellknown');
    expect(elements.find((e) => e.content.endsWith('come mostly from the north-'))?.type).toBe('text');
    expect(elements.filter((e) => e.type === 'list_item').map((e) => e.content)).toEqual([
      '- east of the bay in winter',
      '- west of the bay in summer',
    ]);
  });
});

describe('tables need evidence, by kind: contents, term lists, figure text, grids, math (issue 21.3)', () => {
  it('a table of contents (titles with leader dots to a page number) is not a table', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.text('Contents', 72, 70, 18, c.bold);
        let top = 110;
        ['Topological spaces', 'Manifolds', 'Fundamental group'].forEach((chapter, k) => {
          c.text(String(k + 1), 72, top, 10, c.bold);
          c.text(chapter, 90, top, 10, c.bold);
          c.text(String(2 + 20 * k), 530, top, 10, c.bold);
          top += 14;
          for (let s = 1; s <= 4; s++, top += 14) {
            const title = `Section ${k + 1}.${s} on ${['metrics', 'maps', 'paths', 'covers'][s - 1]}`;
            c.text(`${k + 1}.${s}`, 90, top);
            const w = c.text(title, 115, top);
            c.text(' .'.repeat(Math.floor((505 - 115 - w) / 5.6)), 115 + w, top);
            c.text(String(2 + 20 * k + 4 * s), 530, top);
          }
        });
      },
    ]);
    const { markdown, elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
    // Read row by row: each title with its leaders and page number, each chapter with its page.
    expect(markdown).toMatch(/2\.3 Section 2\.3 on paths( \.)+ 34/);
    expect(markdown).toContain('2 Manifolds 22');
  });

  it('a list of symbols (short terms, definitions in words) is not a table; a two-column table of values is', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.text('List of symbols', 72, 70, 14, c.bold);
        const terms: Array<[string, string]> = [
          ['Dk', 'Standard simplex of dimension k'],
          ['X#Y', 'Gluing of the spaces X and Y'],
          ['f*', 'Map between the fundamental groups'],
          ['pi1(X,x)', 'Fundamental group of X at the point x'],
          ['Fix(f)', 'Set of the fixed points of the map f'],
          ['|x|', 'Euclidean norm'],
          ['V(f)', 'Set of the zeros of f'],
        ];
        terms.forEach(([t, d], i) => {
          c.text(t, 72, 100 + i * 13);
          c.text(d, 150, 100 + i * 13);
        });
        c.text('Parameters of the orbit', 72, 250, 12, c.bold);
        const values: Array<[string, string]> = [
          ['Mean motion', '4.0923 deg/day'],
          ['Eccentricity', '0.2056'],
          ['Inclination', '7.005 deg'],
          ['Semi-major axis', '0.3871 AU'],
          ['Period', '87.969 days'],
        ];
        values.forEach(([t, d], i) => {
          c.text(t, 72, 280 + i * 13);
          c.text(d, 220, 280 + i * 13);
        });
      },
    ]);
    const { markdown, elements } = await parseSynthetic(bytes);
    const tables = elements.filter((e) => e.type === 'table');
    expect(tables).toHaveLength(1);
    expect(tables[0]!.cells!.map((x) => x.text)).toContain('0.2056');
    // Read row by row, each term with its definition.
    expect(markdown).toContain('Fix(f) Set of the fixed points of the map f');
  });

  it('two symbol lists side by side (math symbols, names of two words) are read row by row, each list on its own', async () => {
    const left: Array<[string, string]> = [
      ['A × B', 'Kreuzprodukt'],
      ['P(M)', 'Potenzmenge von M'],
      ['M', 'Abschluss von M'],
      ['dM', 'Rand der Menge M'],
      ['A \\ B', 'Differenzmenge'],
      ['A + B', 'Disjunkte Vereinigung'],
      ['A · B', 'Schnitt von A, B'],
    ];
    const right: Array<[string, string]> = [
      ['[g]', 'Homotopieklasse von g'],
      ['g × h', 'Zusammenhängen von Wegen'],
      ['B', 'Basis einer Topologie'],
      ['S', 'Subbasis einer Topologie'],
      ['T', 'Topologie'],
      ['|x|', 'Betrag von x'],
      ['<a>', 'Erzeugnis von a'],
    ];
    const bytes = await synthPdf([
      (c) => {
        c.text('Symbolverzeichnis', 90, 90, 18, c.bold);
        left.forEach(([t, d], i) => {
          c.text(t, 90, 140 + i * 13.6, 10.9);
          c.text(d, 128, 140 + i * 13.6, 10.9);
        });
        right.forEach(([t, d], i) => {
          c.text(t, 320, 146 + i * 13.6, 10.9);
          c.text(d, 361, 146 + i * 13.6, 10.9);
        });
      },
    ]);
    const { markdown, elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
    for (const [t, d] of [...left, ...right]) expect(markdown).toContain(`${t} ${d}`);
  });

  it("the book's symbol list (two lists side by side, an exponent of the right one grouped into the left one's row) reads list by list, row by row", async () => {
    // p. 112 of GeoTopo-book, read in place: copied alone into a new PDF with pdf-lib.
    const book = await fs.readFile(corpus('a_born_digital/pypdf-bench/GeoTopo-book.pdf'));
    const { markdown } = await parseSynthetic(await combine([{ bytes: book, pages: [111] }]));
    const text = markdown.replace(/\s+/g, ' ');
    // "f⁻¹(M)" of the right list: its exponent is not read into "(von" of the left list.
    expect(text).not.toMatch(/\(von\s*−1/);
    // The left list to its end (Gruppen), then the right one (Perm(X) … Euler-Charakteristik).
    expect(text.indexOf('Projektive lineare Gruppe')).toBeLessThan(text.indexOf('Perm(X)'));
    for (const row of [
      'B Basis einer Topologie',
      'T Topologie',
      'A Atlas',
      'Sn Sphäre',
      'χ(K) Euler-Charakteristik von K',
    ])
      expect(text).toContain(row);
  });

  it('labels of a drawn figure right above its caption ("Abbildung 3.4:") are not a table', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('lead', 14), 72, 540, 80);
        // Two number lines, each a rule with labelled pieces above and tick values below, each
        // with its panel caption; the figure's caption under them.
        [
          { top: 130, ticks: ['0', '1/2', '3/4', '1'], at: [170, 310, 380, 455], panel: '(a) g1 * (g2 * g3)' },
          { top: 190, ticks: ['0', '1/4', '1/2', '1'], at: [170, 240, 310, 455], panel: '(b) (g1 * g2) * g3' },
        ].forEach(({ top, ticks, at, panel }) => {
          c.line(170, top, 455, top);
          for (const x of at) c.line(x, top - 3, x, top + 3);
          ['g1', 'g2', 'g3'].forEach((g, k) => c.text(g, (at[k]! + at[k + 1]!) / 2, top - 6, 8));
          ticks.forEach((t, k) => c.text(t, at[k]! - 3, top + 12, 8));
          c.text(panel, 280, top + 32, 9);
        });
        c.text('Abbildung 3.4: Das Zusammensetzen von Wegen ist nicht assoziativ', 150, 250);
        c.justified(proseWords('after', 14), 72, 540, 280);
      },
    ]);
    const { markdown, elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
    expect(markdown).toContain('Abbildung 3.4');
  });

  it('a drawn grid whose squares hold one repeated mark and no value is a figure, not a table', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('lead', 14), 72, 540, 80);
        const [x0, y0, step] = [120, 120, 24];
        for (let k = 0; k <= 6; k++) {
          c.line(x0, y0 + k * step, x0 + 6 * step, y0 + k * step);
          c.line(x0 + k * step, y0, x0 + k * step, y0 + 6 * step);
        }
        for (let r = 0; r < 6; r++) for (let k = 0; k < 6; k++) c.text('*', x0 + k * step + 10, y0 + r * step + 15, 9);
        c.text('Figure 3.11: The plane over the torus.', 120, y0 + 6 * step + 30);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    expect(elements.some((e) => e.type === 'table')).toBe(false);
  });

  it('a matrix of partial derivatives inside a displayed equation is math, not a table', () => {
    // The Jacobian determinant det(∂x/∂u ∂x/∂v; ∂y/∂u ∂y/∂v)(v0) ≠ 0 as TeX sets it and the line
    // builder splits it at its gutter: fraction parts in rows of their own, the main line with
    // "det" and the relation. Fed to the stream-table finder as those line fragments.
    const lines = [
      run('Since the rank of the Jacobian is 2 we may assume', 110, 475, 10.9),
      run('( ∂x', 287.7, 493, 8, false, 306.7),
      run('∂x )', 319.1, 493, 8, false, 338.1),
      run('det ∂u ∂v (v0) ≠ 0', 270.8, 506.5, 10.9, false, 378.4),
      run('∂y ∂y', 297.2, 507.5, 8, false, 328.4),
      run('∂u', 296.9, 516.5, 8, false, 306.8),
      run('∂v', 319.3, 516.5, 8, false, 328.4),
      run('and so the map is a local chart at the point v0.', 110, 544, 10.9),
    ].map((r) => makeLine([r]));
    expect(streamTableRegions(lines, 595)).toEqual([]);
  });
});

describe('tables apart: a caption between rules, and tables side by side (issue 21.3)', () => {
  /** A booktabs-like table: rules above and below the header, rows, an optional bottom rule. */
  const ruledTable = (c: Canvas, x0: number, top: number, cols: number[], rows: string[][], bottomRule = true) => {
    const x1 = x0 + cols[cols.length - 1]! + 50;
    c.line(x0, top, x1, top);
    rows.forEach((r, i) => {
      r.forEach((t, k) => c.text(t, x0 + cols[k]!, top + 12 + i * 12, 9));
      if (i === 0) c.line(x0, top + 16, x1, top + 16);
    });
    if (bottomRule) c.line(x0, top + 16 + rows.length * 12 - 8, x1, top + 16 + rows.length * 12 - 8);
    return top + 16 + rows.length * 12;
  };
  const body = (tag: string, n: number) =>
    Array.from({ length: n }, (_, i) => [
      `${tag}${i}`,
      `${(10 + i * 1.37).toFixed(2)}`,
      `${(2 + i * 0.41).toFixed(3)}`,
    ]);

  it('two rule-stacked tables one under the other, the second under its own caption, stay two tables', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.text('Table A.1. Maser observations.', 72, 70, 9, c.bold);
        let bottom = ruledTable(c, 72, 80, [0, 150, 300], [['Source', 'Flux', 'Width'], ...body('src', 8)]);
        c.text('Notes. The widths are from Gaussian fits.', 72, bottom + 10, 8);
        c.text('Table A.2. Continuum sources.', 72, bottom + 40, 9, c.bold);
        bottom = ruledTable(c, 72, bottom + 50, [0, 150, 300], [['Name', 'Ra', 'Dec'], ...body('cs', 6)]);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    const tables = elements.filter((e) => e.type === 'table');
    expect(tables).toHaveLength(2);
    expect(tables[0]!.cells!.map((x) => x.text)).toContain('src7');
    expect(tables[0]!.cells!.map((x) => x.text)).not.toContain('cs0');
    expect(tables[1]!.cells!.map((x) => x.text)).toContain('cs5');
  });

  it('two tables side by side, headed above their first rule, whose last rows run on under their rules are two tables', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('lead', 16), 54, 545, 70);
        // Each table: header, rule, three ruled-off rows, rule, three more rows and no rule under them.
        for (const [x0, tag] of [
          [54, 'a'],
          [316, 'b'],
        ] as const) {
          const cols = [0, 50, 115, 170];
          const x1 = x0 + 225;
          ['Type', 'edge', `${tag}0`, `${tag}1`].forEach((t, k) => c.text(t, x0 + cols[k]!, 100, 9));
          c.line(x0, 104, x1, 104);
          ['center', 'lower', 'upper'].forEach((e, i) => {
            [i === 1 ? 'Orich' : '', e, `${tag}${(10.2 + i).toFixed(2)}`, `-${(2.1 + i).toFixed(3)}`].forEach(
              (t, k) => t && c.text(t, x0 + cols[k]!, 116 + i * 11, 9),
            );
          });
          c.line(x0, 150, x1, 150);
          ['center', 'lower', 'upper'].forEach((e, i) => {
            [i === 1 ? 'Crich' : '', e, `${tag}${(9.7 + i).toFixed(2)}`, `-${(0.7 + i).toFixed(3)}`].forEach(
              (t, k) => t && c.text(t, x0 + cols[k]!, 161 + i * 11, 9),
            );
          });
        }
        c.justified(proseWords('after', 16), 54, 545, 230);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    const tables = elements.filter((e) => e.type === 'table');
    expect(tables).toHaveLength(2);
    const sorted = [...tables].sort((p, q) => p.bbox.x1 - q.bbox.x1);
    // The gap between the tables stays open: a column gutter for the reading order.
    expect(sorted[0]!.bbox.x2).toBeLessThan(sorted[1]!.bbox.x1);
    const [left, right] = sorted.map((t) => t.cells!.map((x) => x.text));
    // The header stands above the first rule (no rule over it) and still heads its table.
    expect(left).toEqual(expect.arrayContaining(['Type', 'a0', 'a10.20', 'a9.70', 'a11.70']));
    expect(right).toEqual(expect.arrayContaining(['b1', 'b10.20', 'b9.70', 'b11.70']));
    expect(left!.some((t) => t.startsWith('b'))).toBe(false);
  });
});

describe('script marks and radicals join their line (issue 21, text fidelity)', () => {
  it('a radical sign in a row of its own joins the row of its radicand below it, not the line above', () => {
    // TeX hangs √ above the radicand's baseline: its box overlaps the formula's row too little to
    // be grouped with it, and the line above reaches closer to it than the formula does.
    const lines = buildLines([
      run('the line above the formula', 72, 86, 10),
      run('where δ =', 72, 100, 10, false, 116),
      run('√', 118.5, 92, 10, false, 124),
      run('2/(σμ)', 124.5, 100, 10, false, 150),
    ]);
    const texts = lines.map((l) => l.text);
    expect(texts).toContain('the line above the formula');
    expect(texts.some((t) => /^where δ = ?√ ?2\/\(σμ\)$/.test(t))).toBe(true);
  });
});

describe('script marks in tables go on their base word line (issue 21, text fidelity)', () => {
  const body = [
    ['Alpha', '12', '3.5'],
    ['Beta', '43', '2.1'],
    ['Gamma', '18', '4.4'],
    ['Delta', '27', '1.9'],
    ['Epsilon', '33', '2.7'],
    ['Zeta', '41', '3.0'],
    ['Eta', '25', '2.2'],
  ];

  it('footnote marks set after table values ("43a", "27†") neither add nor merge rows: a table of 8 rows keeps its 8 rows', async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('intro', 14), 72, 540, 80);
        [['Sample', 'Count', 'Ratio'], ...body].forEach((r, i) =>
          r.forEach((t, k) => {
            const x = 72 + k * 140,
              top = 120 + i * 14;
            const w = c.text(t, x, top, 10, i === 0 ? c.bold : c.font);
            // Footnote marks: 6 pt, raised 4 pt, right after the value.
            if (t === '43') c.text('a', x + w + 0.3, top - 4, 6);
            if (t === '27') c.text('†', x + w + 0.3, top - 4, 6);
          }),
        );
        c.justified(proseWords('outro', 14), 72, 540, 250);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    const tables = elements.filter((e) => e.type === 'table');
    expect(tables).toHaveLength(1);
    const cells = tables[0]!.cells!;
    expect(new Set(cells.map((x) => x.row)).size).toBe(8);
    const row = (name: string) => cells.filter((x) => x.row === cells.find((y) => y.text === name)?.row);
    expect(row('Beta').map((x) => x.text.replace(/\s/g, ''))).toContain('43a');
    expect(row('Delta').map((x) => x.text.replace(/\s/g, ''))).toContain('27†');
  });

  it("a unit row of raised marks between brackets (\"(° ' '')\") stays one row of the table", async () => {
    const bytes = await synthPdf([
      (c) => {
        c.justified(proseWords('intro', 14), 72, 540, 80);
        const rows = [['Sample', 'Angle', 'Ratio'], ['', '', ''], ...body.slice(0, 6)];
        rows.forEach((r, i) =>
          r.forEach((t, k) => c.text(t, 72 + k * 140, 120 + i * 14, 10, i === 0 ? c.bold : c.font)),
        );
        // The unit row under "Angle": brackets on the row's baseline, the unit marks raised and
        // smaller, a word space apart (wider than a script follows its base).
        const top = 134;
        let x = 212;
        x += c.text('(', x, top, 10);
        x += c.text('°', x + 0.2, top - 3.5, 7) + 4.5;
        x += c.text("'", x, top - 3.5, 7) + 4.5;
        x += c.text("''", x, top - 3.5, 7) + 0.5;
        c.text(')', x, top, 10);
        c.justified(proseWords('outro', 14), 72, 540, 250);
      },
    ]);
    const { elements } = await parseSynthetic(bytes);
    const tables = elements.filter((e) => e.type === 'table');
    expect(tables).toHaveLength(1);
    const cells = tables[0]!.cells!;
    expect(new Set(cells.map((x) => x.row)).size).toBe(8);
    const unit = cells.find((x) => x.text.includes('('));
    expect(unit?.text.replace(/\s/g, '')).toBe("(°''')");
  });
});
