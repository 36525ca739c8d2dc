import { baseEnv, intFromEnv, z } from '@docfleet/config';

/** Environment of the parse worker (on top of every service's variables). */
export const parseWorkerEnv = baseEnv
  .extend({
    /** Jobs processed at once by this process (each is CPU-bound: one per core is plenty). */
    PARSE_CONCURRENCY: intFromEnv(1, 1),
    /** Documents with more pages are refused (the job fails, nothing is charged). */
    MAX_PAGES: intFromEnv(10_000, 1),
    /**
     * A PDF with more pages is parsed in page-range shards of this many pages that any parse worker
     * takes (issue 17); shorter documents are one job on one worker as before.
     */
    PARSE_SHARD_PAGES: intFromEnv(32, 1),
    /**
     * A job whose worker stops renewing its lock this long is handed to another worker. With the
     * stalled check below, a killed worker's job is running again within a minute (issue 13.2).
     */
    PARSE_LOCK_SECONDS: intFromEnv(45, 2),
    /** How often expired locks are looked for. */
    PARSE_STALLED_INTERVAL_SECONDS: intFromEnv(15, 1),
    /** Times a job may lose its worker (kill -9, OOM) before it is failed for good. */
    PARSE_MAX_STALLED: intFromEnv(3, 0),
    /**
     * How often a worker looks for shards whose worker process is gone (its named Redis connection
     * closed with it) and hands them to the next free worker (lost-shards.ts); 0 leaves it to BullMQ's
     * lock expiry and stalled check (PARSE_LOCK_SECONDS + up to two PARSE_STALLED_INTERVAL_SECONDS).
     */
    PARSE_LOST_SHARD_CHECK_SECONDS: intFromEnv(2, 0),
    /** A running shard is a candidate once its row has not moved this long. */
    PARSE_LOST_SHARD_QUIET_SECONDS: intFromEnv(3, 1),
    /** On SIGTERM: time to finish the current job before handing it back to the queue. */
    PARSE_GRACE_SECONDS: intFromEnv(25, 0),
    /** How often jobs the queue has given up on (or never had) are failed with their credits released. */
    PARSE_REAP_INTERVAL_SECONDS: intFromEnv(15, 1),
    /**
     * Per-page budget (libs/pdf budget.ts): a page over it is read by the bounded path (a raster at a
     * capped size, then OCR) or else reported as a failed page `page_too_complex`, not charged, while
     * the rest of the document is parsed. Operators (and text items) pdf.js may produce for one page.
     */
    PARSE_PAGE_MAX_OPERATORS: intFromEnv(2_000_000, 1000),
    /** Wall time to read one page with pdf.js, and to rasterise it on the bounded path. */
    PARSE_PAGE_MAX_SECONDS: intFromEnv(30, 1),
    /** Largest raster of one page (OCR raster, page image, crops), in megapixels: larger pages render at a lower resolution. */
    PARSE_PAGE_MAX_MEGAPIXELS: intFromEnv(50, 1),
    /** Longest side of any raster of one page, in pixels. */
    PARSE_PAGE_MAX_PIXELS: intFromEnv(16_384, 256),
    /**
     * Diagnostics and benchmarks only: `false` skips page images (the manifest's `pages` link is then
     * null, which the API does not foresee for PDFs and images). Default true.
     */
    /**
     * Image pages: the first rows, where read with doubt, are read again at two sizes (the smaller with
     * Tesseract's best model; libs/pdf header-reread.ts). For fleets that extract receipts' issuer and
     * address: company F1 0.559 -> 0.655 on SROIE receipts, at ~0.15-0.2x raw Tesseract's time per
     * image more. Default false.
     */
    PARSE_OCR_HEADER_REREAD: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    /**
     * Image pages: the body rows whose first reading lost text (figures read with doubt, ink under no
     * word, inked rows with no row) read again in one more Tesseract run on the pages that show a loss
     * (libs/pdf body-reread.ts). For fleets that extract receipts' dates and totals. Default false.
     */
    PARSE_OCR_BODY_REREAD: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    /** Scanned tables of small print: each cell read again upscaled (on by default; @docfleet/pdf ocrCellReread). */
    PARSE_OCR_CELL_REREAD: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    PARSE_PAGE_IMAGES: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    /**
     * Tests only: each page of a sharded parse takes this many ms longer (after it is read, before its
     * result is stored), so a test can kill a worker mid-shard whatever the machine's speed. Nothing
     * else changes: the page is read, stored, debited and logged as always. 0 (default) adds nothing;
     * refused when NODE_ENV is production.
     */
    PARSE_TEST_PAGE_DELAY_MS: intFromEnv(0, 0),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.PARSE_TEST_PAGE_DELAY_MS > 0)
      ctx.addIssue({
        code: 'custom',
        path: ['PARSE_TEST_PAGE_DELAY_MS'],
        message: 'is for tests only and must not be set when NODE_ENV is production',
      });
  });
export type ParseWorkerEnv = z.infer<typeof parseWorkerEnv>;
