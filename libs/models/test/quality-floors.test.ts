// Regression floors for docfleet-local on the corpus, a little under the figures measured with
// eval/eval-local.ts (README, "Measured"). A change that makes the local model worse fails here.
// Parsed evidence is cached per file for the whole test file; OCR-only inputs are left out (slow).
import { DEFAULT_CORPUS, parseEvidence, type ParsedEvidence } from '../eval/corpus-evidence';
import { evaluateClassification, evaluateInvoices, evaluateNdas, evaluateSplit, type Loader } from '../eval/run-eval';

const cache = new Map<string, Promise<ParsedEvidence>>();
const load: Loader = (file) => {
  if (!cache.has(file)) cache.set(file, parseEvidence(file));
  return cache.get(file)!;
};
const OCR_ONLY = /\.(png|jpe?g)$|c_scanned_images\/docling\/ocr_test\.pdf|table-multi-row-column-cells\.pdf/;

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

  it('classification with MANIFEST doc_class labels (text-layer PDFs and spreadsheets): accuracy ≥ 0.90', async () => {
    const r = await evaluateClassification(DEFAULT_CORPUS, load, (p) => !OCR_ONLY.test(p));
    expect(r.total).toBeGreaterThanOrEqual(20);
    expect(r.accuracy).toBeGreaterThanOrEqual(0.9);
  });
});
