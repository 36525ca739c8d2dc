// What a job or operation failure may show its caller (issue 19.3): redactDetail and publicTraceback
// keep the sentence and drop what belongs to the log (paths, stack frames, causes).
import { publicTraceback, redactDetail } from '../src';

describe('redactDetail', () => {
  it('replaces absolute paths and drops stack frames, keeping the sentence', () => {
    const text = [
      "ENOENT: no such file or directory, open '/work/data/kb/1/files/2/artifacts/3/grounding.json'",
      '    at async open (node:internal/fs/promises:639:25)',
      '    at Object.read (/app/libs/storage/src/local.ts:41:7)',
      'Syntax Error: C:\\Users\\x\\file.pdf is damaged',
    ].join('\n');
    expect(redactDetail(text)).toBe(
      "ENOENT: no such file or directory, open '<path>'\nSyntax Error: <path> is damaged",
    );
  });

  it('leaves ordinary text alone: fractions, URLs paths of one segment, dates', () => {
    for (const s of ['1/2 of the pages', 'page 3/10 failed', 'HTTP 500 from /v1', 'due 2026/11/26'])
      expect(redactDetail(s)).toBe(s);
  });
});

describe('publicTraceback', () => {
  it('is the name, code and message of the error itself: no frames, no cause', () => {
    const cause = new Error('pdftoppm: Syntax Error: Page count (1000000) larger than number of objects');
    const err = Object.assign(new Error("could not read '/tmp/docfleet-pdf-abc/r1/page-1.png'", { cause }), {
      code: 'EIO',
    });
    const tb = publicTraceback(err);
    expect(tb).toBe("Error [EIO]: could not read '<path>'");
    expect(publicTraceback('a plain /var/lib/thing/x reason')).toBe('a plain <path> reason');
  });
});
