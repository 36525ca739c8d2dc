import { unitsOfResult } from '../src/parse-metrics';

// The shapes parse-document.ts and parse-spreadsheet.ts write to jobs.result on completion.
describe('pages of a completed parse, from its job result', () => {
  it('counts changed pages as parsed and unchanged ones as reused (PDFs and images)', () => {
    expect(unitsOfResult({ page_count: 5, changed_pages: [2, 5], unchanged_pages: [1, 3, 4], reused: false })).toEqual({
      parsed: 2,
      reused: 3,
    });
    expect(unitsOfResult({ page_count: 3, changed_pages: [], unchanged_pages: [1, 2, 3], reused: true })).toEqual({
      parsed: 0,
      reused: 3,
    });
  });

  it('counts sheets for spreadsheets, all reused when the bytes did not change', () => {
    expect(unitsOfResult({ sheet_count: 4, segment_count: 9, reused: false })).toEqual({ parsed: 4, reused: 0 });
    expect(unitsOfResult({ sheet_count: 4, reused: true })).toEqual({ parsed: 0, reused: 4 });
  });

  it('counts nothing for a result it does not know', () => {
    expect(unitsOfResult(null)).toEqual({ parsed: 0, reused: 0 });
  });
});
