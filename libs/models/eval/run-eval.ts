// The measurements behind eval-local.ts and the regression tests. Every task goes through the
// public path: request builder → resolveModel('docfleet-local') → generateJson → checked output.
import fs from 'node:fs/promises';
import path from 'node:path';
import { readModelConfig } from '../src/config';
import { resolveModel } from '../src/registry';
import {
  addCounts,
  citationVerifiable,
  compareField,
  prf,
  splitScores,
  valueAt,
  type Counts,
  type Prf,
} from '../src/metrics';
import { buildClassifyRequest, buildExtractRequest, buildSplitRequest } from '../src/tasks/requests';
import type { ClassifyOutput, ExtractOutput, SplitOutput } from '../src/tasks/outputs';
import type { Evidence } from '../src/types';
import type { ParsedEvidence } from './corpus-evidence';
import {
  INVOICE_FIELDS,
  INVOICE_SCHEMA,
  INVOICES,
  NDA_FIELDS,
  NDA_SCHEMA,
  NDAS,
  buildPlanPdf,
  extraPlans,
  invoicePdf,
  invoiceTruth,
  manifest,
  ndaPdf,
  ndaTruth,
  splitPlans,
} from './corpus-sets';

export type Loader = (absPath: string) => Promise<ParsedEvidence>;

const local = () => resolveModel(readModelConfig({ MODEL_DEFAULT: 'docfleet-local' }), 'docfleet-local');

export interface ExtractionReport {
  overall: Prf;
  perField: Record<string, Prf>;
  citations: { total: number; verifiable: number; share: number };
  docs: Array<{ doc: string; predicted: Record<string, unknown>; expected: Record<string, unknown> }>;
  notes: string[];
}

async function extractSet(corpus: string, load: Loader, set: 'invoices' | 'ndas'): Promise<ExtractionReport> {
  const model = local();
  const perField: Record<string, Counts> = {};
  const docs: ExtractionReport['docs'] = [];
  const notes: string[] = [];
  let total = 0;
  let verifiable = 0;
  const names = set === 'invoices' ? INVOICES : NDAS;
  for (const name of names) {
    const parsed = await load(path.join(corpus, set === 'invoices' ? invoicePdf(name) : ndaPdf(name)));
    const truth = set === 'invoices' ? await invoiceTruth(corpus, name) : await ndaTruth(corpus, name);
    const { output } = await model.generateJson<ExtractOutput>(
      buildExtractRequest({ evidence: parsed.evidence, schema: set === 'invoices' ? INVOICE_SCHEMA : NDA_SCHEMA }),
    );
    const pageText = (parsed.evidence.pages ?? [])
      .map((p) => p.text)
      .join('\n')
      .toLowerCase()
      .replace(/\s+/g, ' ');
    for (const f of set === 'invoices' ? INVOICE_FIELDS : NDA_FIELDS) {
      let expected = truth[f.gt] ?? null;
      // invoice2data's issuer comes from its templates; score it only where that name is printed.
      if (f.gt === 'issuer' && typeof expected === 'string' && !pageText.includes(expected.toLowerCase())) {
        notes.push(`${name}: issuer "${expected}" is not printed on the page; not scored`);
        continue;
      }
      if (expected === undefined) expected = null;
      perField[f.field] = addCounts(
        perField[f.field] ?? { tp: 0, fp: 0, fn: 0 },
        compareField(f.kind, expected, output.jsonResult[f.field]),
      );
    }
    for (const c of output.citations) {
      total++;
      if (citationVerifiable(valueAt(output.jsonResult, c.path), c, parsed.segments)) verifiable++;
    }
    docs.push({ doc: name, predicted: output.jsonResult, expected: truth });
  }
  const overall = prf(addCounts(...Object.values(perField)));
  return {
    overall,
    perField: Object.fromEntries(Object.entries(perField).map(([k, v]) => [k, prf(v)])),
    citations: { total, verifiable, share: total ? verifiable / total : 1 },
    docs,
    notes,
  };
}

export const evaluateInvoices = (corpus: string, load: Loader) => extractSet(corpus, load, 'invoices');
export const evaluateNdas = (corpus: string, load: Loader) => extractSet(corpus, load, 'ndas');

export interface SplitReport {
  overall: Prf & { exactRecords: number; exactRecordAccuracy: number; expectedRecords: number };
  plans: Array<{
    plan: string;
    expected: string;
    predicted: string;
    f1: number;
    exactRecordAccuracy: number;
    reasons: string[];
  }>;
}

export async function evaluateSplit(
  corpus: string,
  load: Loader,
  which: 'plans' | 'extra' = 'plans',
): Promise<SplitReport> {
  const model = local();
  const plans: SplitReport['plans'] = [];
  const counts: Counts[] = [];
  let exact = 0;
  let expectedRecords = 0;
  for (const plan of which === 'plans' ? await splitPlans(corpus) : await extraPlans(corpus)) {
    const file = await buildPlanPdf(corpus, plan);
    try {
      const parsed = await load(file);
      const { output } = await model.generateJson<SplitOutput>(buildSplitRequest({ evidence: parsed.evidence }));
      const expected = plan.segments.map((s) => ({ startPage: s.first_page, endPage: s.last_page }));
      const s = splitScores(expected, output.records);
      counts.push(s);
      exact += s.exactRecords;
      expectedRecords += expected.length;
      const fmt = (rs: Array<{ startPage: number; endPage: number }>) =>
        rs.map((r) => `${r.startPage}-${r.endPage}`).join(' ');
      plans.push({
        plan: plan.name,
        expected: fmt(expected),
        predicted: fmt(output.records),
        f1: s.f1,
        exactRecordAccuracy: s.exactRecordAccuracy,
        reasons: output.records.map(
          (r) => `${r.startPage}: ${r.documentType} "${r.title}" (${r.confidence}) ${r.boundaryReason}`,
        ),
      });
    } finally {
      await fs.rm(path.dirname(file), { recursive: true, force: true });
    }
  }
  return {
    overall: {
      ...prf(addCounts(...counts)),
      exactRecords: exact,
      exactRecordAccuracy: expectedRecords ? exact / expectedRecords : 1,
      expectedRecords,
    },
    plans,
  };
}

export interface ClassificationReport {
  accuracy: number;
  total: number;
  correct: number;
  classes: string[];
  rows: Array<{ doc: string; expected: string; predicted: string; confidence: number }>;
  skipped: string[];
}

/** Classifies every MANIFEST document (optionally filtered) with the MANIFEST's doc_class values as the classes. */
export async function evaluateClassification(
  corpus: string,
  load: Loader,
  filter: (p: string) => boolean = () => true,
): Promise<ClassificationReport> {
  const model = local();
  const rows = await manifest(corpus);
  const classes = [...new Set(rows.map((r) => r.docClass))].sort();
  const out: ClassificationReport['rows'] = [];
  const skipped: string[] = [];
  for (const r of rows.filter((x) => filter(x.path))) {
    let evidence: Evidence;
    try {
      evidence = (await load(path.join(corpus, r.path))).evidence;
    } catch (err) {
      skipped.push(`${r.path}: ${(err as Error).message}`);
      continue;
    }
    const { output } = await model.generateJson<ClassifyOutput>(buildClassifyRequest({ evidence, classes }));
    out.push({
      doc: r.path,
      expected: r.docClass,
      predicted: output.document.class,
      confidence: output.document.confidence,
    });
  }
  const correct = out.filter((x) => x.expected === x.predicted).length;
  return { accuracy: out.length ? correct / out.length : 0, total: out.length, correct, classes, rows: out, skipped };
}
