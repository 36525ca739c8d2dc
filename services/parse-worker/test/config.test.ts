// The parse worker's environment: the test-only page delay is refused in production.
import { parseWorkerEnv } from '../src/config';

describe('PARSE_TEST_PAGE_DELAY_MS', () => {
  it('defaults to 0 and is read as a number outside production', () => {
    expect(parseWorkerEnv.parse({}).PARSE_TEST_PAGE_DELAY_MS).toBe(0);
    expect(parseWorkerEnv.parse({ NODE_ENV: 'test', PARSE_TEST_PAGE_DELAY_MS: '300' }).PARSE_TEST_PAGE_DELAY_MS).toBe(
      300,
    );
  });

  it('is refused when NODE_ENV is production (0 is accepted there)', () => {
    const r = parseWorkerEnv.safeParse({ NODE_ENV: 'production', PARSE_TEST_PAGE_DELAY_MS: '300' });
    expect(r.success).toBe(false);
    expect(r.error?.issues).toEqual([
      expect.objectContaining({ path: ['PARSE_TEST_PAGE_DELAY_MS'], message: expect.stringContaining('tests only') }),
    ]);
    expect(parseWorkerEnv.safeParse({ NODE_ENV: 'production', PARSE_TEST_PAGE_DELAY_MS: '0' }).success).toBe(true);
    expect(parseWorkerEnv.safeParse({ NODE_ENV: 'production', PARSE_TEST_PAGE_DELAY_MS: '-5' }).success).toBe(false);
  });
});

describe('PARSE_OCR_BODY_REREAD', () => {
  it('is off unless set to true', () => {
    expect(parseWorkerEnv.parse({}).PARSE_OCR_BODY_REREAD).toBe(false);
    expect(parseWorkerEnv.parse({ PARSE_OCR_BODY_REREAD: 'true' }).PARSE_OCR_BODY_REREAD).toBe(true);
    expect(parseWorkerEnv.safeParse({ PARSE_OCR_BODY_REREAD: 'yes' }).success).toBe(false);
  });
});

describe('PARSE_OCR_HEADER_REREAD', () => {
  it('is off unless set to true', () => {
    expect(parseWorkerEnv.parse({}).PARSE_OCR_HEADER_REREAD).toBe(false);
    expect(parseWorkerEnv.parse({ PARSE_OCR_HEADER_REREAD: 'true' }).PARSE_OCR_HEADER_REREAD).toBe(true);
    expect(parseWorkerEnv.safeParse({ PARSE_OCR_HEADER_REREAD: 'yes' }).success).toBe(false);
  });
});

describe('PARSE_OCR_CELL_REREAD', () => {
  it('is on unless set to false', () => {
    expect(parseWorkerEnv.parse({}).PARSE_OCR_CELL_REREAD).toBe(true);
    expect(parseWorkerEnv.parse({ PARSE_OCR_CELL_REREAD: 'false' }).PARSE_OCR_CELL_REREAD).toBe(false);
    expect(parseWorkerEnv.safeParse({ PARSE_OCR_CELL_REREAD: 'yes' }).success).toBe(false);
  });
});
