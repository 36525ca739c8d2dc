import { footnoteMarker, noteMarkers, quarterTags, segmentRows, yearTags } from '../src';

const page = (n: number) => ({ pageNumber: n, xmin: 0, ymin: 0, xmax: 1000, ymax: 100, sourceType: 'pdf' });

describe('tags', () => {
  it('finds years 1900-2099, not amounts or long numbers', () => {
    expect(yearTags('FY2023 results vs 2022; dated 2021-03-15 and 15/01/2020; since 1999.')).toEqual([
      1999, 2020, 2021, 2022, 2023,
    ]);
    expect(yearTags('$2,019.00 and 2019.50 and 120193 and 3000 and 1850 and 2100')).toEqual([]);
  });

  it('finds quarters in short and written forms', () => {
    expect(quarterTags('Q1 2023, 3Q23, Q4FY22, the second quarter and third-quarter sales, quarter 4')).toEqual([
      'Q1',
      'Q2',
      'Q3',
      'Q4',
    ]);
    expect(quarterTags('HQ1 building, Q5, FAQ 1')).toEqual([]);
  });

  it('finds footnote markers and the marker a footnote starts with', () => {
    expect(noteMarkers('Revenue¹ rose* and costs† fell; see [^2]. A * alone is not one.').sort()).toEqual(
      ['*', '2', '¹', '†'].sort(),
    );
    expect(footnoteMarker('¹ Restated for 2022.')).toBe('¹');
    expect(footnoteMarker('* Excludes one-off items')).toBe('*');
    expect(footnoteMarker('(1) Unaudited')).toBe('(1)');
    expect(footnoteMarker('[^2]: see above')).toBe('2');
    expect(footnoteMarker('Revenue rose')).toBeNull();
  });
});

describe('segmentRows', () => {
  it('drops segments without markdown, numbers the rest, links neighbours and footnotes on the same page', () => {
    const rows = segmentRows([
      { id: 'a', title: 'Results', markdown: 'Revenue¹ grew in Q3 2023.', coordinates: page(1), sourceType: 'pdf' },
      { id: 'empty', title: 'x', markdown: '   ', coordinates: page(1), sourceType: 'pdf' },
      {
        id: 't',
        title: 'Results',
        markdown: '| Item | 2023 |\n|---|---|\n| Sales* | 10 |',
        coordinates: page(1),
        sourceType: 'pdf',
        tableMetadata: { isTable: true, headers: ['Item', '2023'], rowLabels: ['Sales*'], noteRefs: ['*'] },
      },
      { id: 'n1', title: 'Results', markdown: '¹ Restated.', coordinates: page(1), sourceType: 'pdf' },
      { id: 'n2', title: 'Results', markdown: '* Excludes tax.', coordinates: page(1), sourceType: 'pdf' },
      { id: 'n3', title: 'Other', markdown: '¹ Another page.', coordinates: page(2), sourceType: 'pdf' },
    ]);
    expect(rows.map((r) => [r.segment_id, r.ordinal])).toEqual([
      ['a', 0],
      ['t', 1],
      ['n1', 2],
      ['n2', 3],
      ['n3', 4],
    ]);
    const [a, t] = rows;
    expect(a.neighbors).toEqual({ previousSegmentId: null, nextSegmentId: 't', noteSegmentIds: ['n1'] });
    expect(a).toMatchObject({
      years: [2023],
      quarters: ['Q3'],
      note_refs: ['¹'],
      is_table: false,
      table_metadata: { isTable: false },
    });
    expect(t).toMatchObject({
      is_table: true,
      labels: 'Item \n 2023 \n Sales*',
      table_metadata: { isTable: true, headers: ['Item', '2023'], rowLabels: ['Sales*'], noteRefs: ['*'] },
      neighbors: { previousSegmentId: 'a', nextSegmentId: 'n1', noteSegmentIds: ['n2'] },
    });
    expect(rows[4].neighbors.nextSegmentId).toBeNull();
  });

  it('keeps ids unique, strips NUL, repairs lone surrogates and falls back on the source type', () => {
    const rows = segmentRows(
      [
        { id: 'x', markdown: 'one\u0000two' },
        { id: 'x', markdown: 'bad \ud800 half', coordinates: { sheetIndex: 0, sourceType: 'spreadsheet' } },
      ],
      'image',
    );
    expect(rows.map((r) => r.segment_id)).toEqual(['x', 'x~2']);
    expect(rows[0].markdown).toBe('onetwo');
    expect(rows[0].source_type).toBe('image');
    expect(rows[1].markdown).toBe('bad \ufffd half');
    expect(rows[1].source_type).toBe('spreadsheet');
    expect(() => JSON.parse(JSON.stringify(rows))).not.toThrow();
  });
});
