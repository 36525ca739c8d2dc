// The corpus subsets the local model is measured on, with their ground truth and the schemas the
// extraction is asked with. Shared by eval-local.ts and the regression tests.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import type { CompareKind } from '../src/metrics';
import type { FieldListSchema } from '../src/tasks/field-schema';

export const INVOICES = [
  'AmazonWebServices',
  'AzureInterior',
  'FlipkartInvoice',
  'NetpresseInvoice',
  'QualityHosting',
  'coolblue1',
];
export const NDAS = [
  '5089dc0cb013e46c3f9e21a2531504ed',
  '435d6eaa82632030cfc84bbd93e96bf8',
  '9c05001246961d7ebcaa6e1758c808e6',
];
export const invoicePdf = (name: string) => `f_forms_invoices/invoice2data/${name}.pdf`;
export const ndaPdf = (hash: string) => `e_multipage_split/kleister_nda/${hash}.pdf`;

export const INVOICE_SCHEMA: FieldListSchema = {
  title: 'Invoice',
  fields: [
    { name: 'invoice_number', type: 'string', description: 'Invoice number', required: true },
    { name: 'date', type: 'date', description: 'Invoice date', required: true },
    { name: 'amount', type: 'number', description: 'Total amount due, taxes included', required: true },
    { name: 'currency', type: 'string', description: 'ISO 4217 currency code' },
    { name: 'issuer', type: 'string', description: 'Company that issued the invoice' },
  ],
};
/** GT key → (extracted field, comparison). */
export const INVOICE_FIELDS: Array<{ gt: string; field: string; kind: CompareKind }> = [
  { gt: 'invoice_number', field: 'invoice_number', kind: 'identifier' },
  { gt: 'date', field: 'date', kind: 'date' },
  { gt: 'amount', field: 'amount', kind: 'amount' },
  { gt: 'currency', field: 'currency', kind: 'currency' },
  { gt: 'issuer', field: 'issuer', kind: 'organisation' },
];

export const NDA_SCHEMA: FieldListSchema = {
  title: 'Non-disclosure agreement',
  fields: [
    { name: 'effective_date', type: 'date', description: 'Date the agreement takes effect' },
    { name: 'party', type: 'array', description: 'Parties to the agreement (organisations)' },
    { name: 'jurisdiction', type: 'string', description: 'Governing law: state or country' },
    { name: 'term', type: 'string', description: 'Duration of the agreement' },
  ],
};
export const NDA_FIELDS: Array<{ gt: string; field: string; kind: CompareKind }> = [
  { gt: 'effective_date', field: 'effective_date', kind: 'date' },
  { gt: 'party', field: 'party', kind: 'organisation' },
  { gt: 'jurisdiction', field: 'jurisdiction', kind: 'place' },
  { gt: 'term', field: 'term', kind: 'duration' },
];

export async function invoiceTruth(corpus: string, name: string): Promise<Record<string, unknown>> {
  const arr = JSON.parse(
    await fs.readFile(path.join(corpus, `f_forms_invoices/invoice2data/${name}.json`), 'utf8'),
  ) as Array<Record<string, unknown>>;
  return arr[0]!;
}

export async function ndaTruth(corpus: string, hash: string): Promise<Record<string, unknown>> {
  return JSON.parse(
    await fs.readFile(path.join(corpus, `e_multipage_split/kleister_nda/${hash}.expected.json`), 'utf8'),
  ) as Record<string, unknown>;
}

export interface SplitPlan {
  name: string;
  total_pages: number;
  segments: Array<{ source: string; doc_class: string; first_page: number; last_page: number }>;
}

export async function splitPlans(corpus: string): Promise<SplitPlan[]> {
  return (JSON.parse(await fs.readFile(path.join(corpus, 'split_plans.json'), 'utf8')) as { plans: SplitPlan[] }).plans;
}

/**
 * Extra plans not in split_plans.json, built from other text-layer corpus PDFs (each file is one
 * document). The split heuristics were not tuned on these: they check generalisation.
 */
export const EXTRA_PLAN_SOURCES: string[][] = [
  [
    'a_born_digital/docling/code_and_formula.pdf',
    'b_tables/icdar2013/us-004.pdf',
    'e_multipage_split/kleister_nda/435d6eaa82632030cfc84bbd93e96bf8.pdf',
    'f_forms_invoices/invoice2data/NetpresseInvoice.pdf',
    'b_tables/tabula/spanning_cells.pdf',
    'b_tables/icdar2013/eu-005.pdf',
  ],
  [
    'a_born_digital/docling/2305.03393v1-pg9.pdf',
    'f_forms_invoices/invoice2data/coolblue1.pdf',
    'b_tables/tabula/schools.pdf',
    'f_forms_invoices/invoice2data/QualityHosting.pdf',
    'e_multipage_split/kleister_nda/5089dc0cb013e46c3f9e21a2531504ed.pdf',
    'b_tables/icdar2013/us-012.pdf',
  ],
];

export async function extraPlans(corpus: string): Promise<SplitPlan[]> {
  const plans: SplitPlan[] = [];
  for (const [i, sources] of EXTRA_PLAN_SOURCES.entries()) {
    let page = 1;
    const segments = [];
    for (const source of sources) {
      const n = (await PDFDocument.load(await fs.readFile(path.join(corpus, source)))).getPageCount();
      segments.push({ source, doc_class: '', first_page: page, last_page: page + n - 1 });
      page += n;
    }
    plans.push({ name: `extra_mix_${i + 1}`, total_pages: page - 1, segments });
  }
  return plans;
}

/** Concatenates a plan's PDFs (pdf-lib copyPages) into a temp file; caller deletes it. */
export async function buildPlanPdf(corpus: string, plan: SplitPlan): Promise<string> {
  const out = await PDFDocument.create();
  for (const s of plan.segments) {
    const src = await PDFDocument.load(await fs.readFile(path.join(corpus, s.source)));
    for (const p of await out.copyPages(src, src.getPageIndices())) out.addPage(p);
  }
  if (out.getPageCount() !== plan.total_pages)
    throw new Error(`${plan.name}: built ${out.getPageCount()} pages, plan says ${plan.total_pages}`);
  const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'docfleet-split-')), `${plan.name}.pdf`);
  await fs.writeFile(file, await out.save());
  return file;
}

/** MANIFEST rows: local path, doc_class, kind. */
export async function manifest(corpus: string): Promise<Array<{ path: string; docClass: string }>> {
  const lines = (await fs.readFile(path.join(corpus, 'MANIFEST.tsv'), 'utf8')).split('\n').filter(Boolean);
  const head = lines[0]!.split('\t');
  const pi = head.indexOf('local_path');
  const ci = head.indexOf('doc_class');
  return lines
    .slice(1)
    .map((l) => l.split('\t'))
    .map((c) => ({ path: c[pi]!, docClass: c[ci]! }));
}

/** The eval's field lists as JSON Schemas (what the file-path endpoint takes): dates as format date, lists of strings. */
export function jsonSchemaOf(fl: FieldListSchema): Record<string, unknown> {
  const prop = (f: FieldListSchema['fields'][number]) =>
    f.type === 'date'
      ? { type: 'string', format: 'date', description: f.description }
      : f.type === 'array'
        ? { type: 'array', items: { type: 'string' }, description: f.description }
        : { type: f.type, description: f.description };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: fl.title,
    type: 'object',
    properties: Object.fromEntries(fl.fields.map((f) => [f.name, prop(f)])),
    required: fl.fields.filter((f) => f.required).map((f) => f.name),
  };
}
