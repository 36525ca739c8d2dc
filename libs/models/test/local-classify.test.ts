import {
  buildClassifyRequest,
  buildClassifySuggestRequest,
  readModelConfig,
  resolveModel,
  type ClassifyOutput,
  type ClassifySuggestOutput,
} from '../src';
import { localClassify } from '../src/local/classify/classify';
import { evidenceOf } from './helpers/evidence';

const invoicePage = [
  'Invoice number: 881',
  '| Item | Qty | Unit price | Total |\n|---|---|---|---|\n| Widget | 2 | $ 5.00 | $ 10.00 |',
  'Subtotal $ 10.00, VAT $ 2.00, Amount due $ 12.00',
];
const ndaPage = [
  'MUTUAL NON-DISCLOSURE AGREEMENT',
  'The Receiving Party shall hold the Confidential Information of the Disclosing Party in confidence. This Agreement shall be governed by the laws of the State of Texas. The term of this Agreement shall be two years.',
];
const paperPage = [
  'Abstract',
  'We propose a method for table structure recognition and evaluate it on a public dataset [3], [7]. Experiments show state of the art accuracy compared with prior work (Smith et al.). In this paper we describe the model architecture and the training.',
];

describe('docfleet-local classify', () => {
  it('labels the document and each page from the given classes only', () => {
    const out = localClassify(evidenceOf([invoicePage, ndaPage, ndaPage]), [
      'invoice',
      'contract_nda',
      'scientific_paper',
    ]);
    expect(out.document.class).toBe('contract_nda');
    expect(out.pages.map((p) => p.class)).toEqual(['invoice', 'contract_nda', 'contract_nda']);
    expect(out.document.rationale).toMatch(/contract_nda/);
    expect(out.document.confidence).toBeGreaterThan(0.4);
  });

  it('uses class descriptions for classes it has no vocabulary for', () => {
    const ev = evidenceOf([
      ['Patient discharge summary: the patient was admitted with pneumonia and treated with antibiotics.'],
    ]);
    const out = localClassify(ev, [
      { name: 'medical_record', description: 'patient admission, diagnosis, treatment, discharge' },
      { name: 'invoice', description: '' },
    ]);
    expect(out.document.class).toBe('medical_record');
  });

  it('supports multi-label output and falls back honestly when nothing matches', () => {
    const multi = localClassify(evidenceOf([invoicePage, ndaPage]), ['invoice', 'contract_nda'], { multiLabel: true });
    expect(multi.document.labels?.map((l) => l.class).sort()).toEqual(['contract_nda', 'invoice']);
    const none = localClassify(evidenceOf([['zzz qqq']]), ['invoice', 'contract']);
    expect(none.document).toMatchObject({ class: 'invoice', confidence: 0.2 });
    expect(none.document.rationale).toMatch(/No vocabulary/);
  });

  it('runs through the provider, and suggests classes', async () => {
    const model = resolveModel(readModelConfig({}));
    const ev = evidenceOf([paperPage, invoicePage]);
    const res = await model.generateJson<ClassifyOutput>(
      buildClassifyRequest({ evidence: ev, classes: ['scientific_paper', 'invoice'] }),
    );
    expect(res.output.pages.map((p) => p.class)).toEqual(['scientific_paper', 'invoice']);
    const sug = await model.generateJson<ClassifySuggestOutput>(
      buildClassifySuggestRequest({ evidence: ev, guidelines: 'also separate receipts' }),
    );
    const names = sug.output.classes.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['receipt', 'scientific_paper', 'invoice', 'other']));
    expect(names[0]).toBe('receipt');
  });
});
