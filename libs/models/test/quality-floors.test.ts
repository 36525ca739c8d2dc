// Regression floors for docfleet-local on the corpus, a little under the figures measured with
// eval/eval-local.ts (README, "Measured"). A change that makes the local model worse fails here.
// Parsed evidence is cached per file for the whole test file; OCR-only inputs are left out (slow).
import { DEFAULT_CORPUS, parseEvidence, type ParsedEvidence } from '../eval/corpus-evidence';
import { manifest } from '../eval/corpus-sets';
import { evaluateClassification, evaluateInvoices, evaluateNdas, evaluateSplit, type Loader } from '../eval/run-eval';

const cache = new Map<string, Promise<ParsedEvidence>>();
const load: Loader = (file) => {
  if (!cache.has(file)) cache.set(file, parseEvidence(file));
  return cache.get(file)!;
};
const OCR_ONLY = /\.(png|jpe?g)$|c_scanned_images\/docling\/ocr_test\.pdf|table-multi-row-column-cells\.pdf/;
/**
 * The corpus grows (44 ICDAR reports arrived at once): parsing every row made this one test take 10
 * minutes on a loaded machine. The floor reads a fixed-size sample, the first PER_CLASS files of every
 * class in path order; `pnpm eval:classify` measures the whole manifest.
 */
const PER_CLASS = 4;
async function classSample(): Promise<Set<string>> {
  const byClass = new Map<string, string[]>();
  for (const r of (await manifest(DEFAULT_CORPUS)).filter((x) => !OCR_ONLY.test(x.path))) {
    byClass.set(r.docClass, [...(byClass.get(r.docClass) ?? []), r.path]);
  }
  return new Set([...byClass.values()].flatMap((paths) => paths.sort().slice(0, PER_CLASS)));
}

describe('docfleet-local quality floors (corpus)', () => {
  it('invoices: field F1 ≥ 0.90 and ≥ 95% verifiable citations', async () => {
    const r = await evaluateInvoices(DEFAULT_CORPUS, load);
    expect(r.overall.f1).toBeGreaterThanOrEqual(0.9);
    expect(r.perField.invoice_number!.f1).toBeGreaterThanOrEqual(0.99);
    expect(r.perField.amount!.f1).toBeGreaterThanOrEqual(0.99);
    expect(r.citations.share).toBeGreaterThanOrEqual(0.95);
  });

  it('Kleister NDAs: field F1 ≥ 0.90 and ≥ 95% verifiable citations', async () => {
    const r = await evaluateNdas(DEFAULT_CORPUS, load);
    expect(r.overall.f1).toBeGreaterThanOrEqual(0.9);
    expect(r.citations.share).toBeGreaterThanOrEqual(0.95);
  });

  it('split plans: boundary F1 ≥ 0.90 and exact records ≥ 0.90', async () => {
    const r = await evaluateSplit(DEFAULT_CORPUS, load);
    expect(r.overall.f1).toBeGreaterThanOrEqual(0.9);
    expect(r.overall.exactRecordAccuracy).toBeGreaterThanOrEqual(0.9);
  });

  it('classification with MANIFEST doc_class labels (a per-class sample of text-layer PDFs and spreadsheets): accuracy ≥ 0.88', async () => {
    const sample = await classSample();
    const r = await evaluateClassification(DEFAULT_CORPUS, load, (p) => sample.has(p));
    expect(r.total).toBeGreaterThanOrEqual(20);
    // 23 of 26 (0.885) on this sample since the corpus gained government reports and papers that
    // the local classifier was never shaped on; issue 12 item 5 raises it (eval:classify >= 92%).
    expect(r.accuracy).toBeGreaterThanOrEqual(0.88);
  }, 240_000);
});
