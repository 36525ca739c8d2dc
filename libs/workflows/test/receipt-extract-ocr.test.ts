// A scanned receipt parsed by libs/pdf as the parse worker parses it and extracted by docfleet-local
// through runExtractFile (issue 23): the shop's name read one letter off in the letterhead is taken
// as the page's other mentions spell it (libs/pdf page-name-vote.ts), and cited from the letterhead.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { citationVerifiable, readModelConfig, resolveModel, valueAt } from '@docfleet/models';
import { assembleDocument, inspectDocument, parsePages, segmentsFromGrounding } from '../../pdf/src';
import { runExtractFile } from '../src';

const CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(__dirname, '../../../../shared/corpus');
// "SANYO STATIONERY SHOP" in the letterhead, "SANYU SUPPLY SDN BHD" and "Sanyu.Stationery" below it.
const RECEIPT = path.join(CORPUS, 'c_scanned_images/sroie/473.jpg');

const SCHEMA = {
  title: 'Receipt',
  type: 'object',
  properties: {
    company: { type: 'string', description: 'Company (shop) that issued the receipt' },
    address: { type: 'string', description: 'Postal address of the company' },
  },
};

async function extract(ocrHeaderLexicon: boolean) {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'receipt-ocr-'));
  try {
    const backend = (await inspectDocument(RECEIPT, 'image')).backend.backend;
    const r = await parsePages({
      path: RECEIPT,
      kind: 'image',
      backend,
      outDir: tmp,
      renderPages: false,
      ocrHeaderLexicon,
    });
    const { grounding } = assembleDocument(
      '473.jpg',
      'image',
      r.pages.map((p) => p.grounding),
      r.pages.map((p) => p.markdown),
      backend,
      { pageCount: r.pages.length },
    );
    const segments = segmentsFromGrounding(grounding, {
      fileId: '473.jpg',
      docName: '473.jpg',
      manifestId: 'test',
      sourceType: 'image',
    });
    const doc = await runExtractFile({
      jsonSchema: SCHEMA,
      schemaName: 'receipt',
      allSegments: segments,
      segments,
      pageCount: 1,
      model: resolveModel(readModelConfig({}), 'docfleet-local'),
    });
    const result = doc.jsonResult as Record<string, unknown>;
    const cites = doc.citations.filter((c) => c.path === '/company');
    return {
      company: result.company,
      verifiable: cites.length > 0 && cites.every((c) => citationVerifiable(valueAt(result, c.path), c, segments)),
    };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

describe('a scanned receipt through parsePages and runExtractFile (docfleet-local)', () => {
  it('names the shop as the page spells it elsewhere, cited from the mended letterhead', async () => {
    expect(await extract(false)).toEqual({ company: 'SANYO STATIONERY SHOP', verifiable: true });
    expect(await extract(true)).toEqual({ company: 'SANYU STATIONERY SHOP', verifiable: true });
  }, 180_000);
});
