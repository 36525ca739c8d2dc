// The first rows of an OCR'd page: a word a letter or two off one known legal form or address
// word is mended (header-lexicon.ts; issue 23: "SON BHD" → "SDN BHD" names a receipt's issuer), by
// letter replacement only and under guards that keep names and other words as read.
import fs from 'node:fs/promises';
import { mendHeaderWords } from '../src/ocr/header-lexicon';
import { ocrRows } from '../src/ocr/ocr-layout';
import { recogniseImage } from '../src/ocr/recognise';
import { parsePages } from '../src/parse/parse-pages';
import { loadImagePage } from '../src/render/image-input';
import { corpus, tempDir } from './helpers/fixtures';
import { ocrPage } from './helpers/ocr-words';

const page = (rows: string[]) => ocrPage(rows, { pitch: 50 });
const mend = (rows: string[]) => {
  const r = mendHeaderWords(page(rows), 1);
  return {
    rows: ocrRows(r.words)
      .sort((a, b) => a.y0 - b.y0)
      .map((x) => x.text),
    fixes: r.fixes,
  };
};

describe('mending header words to known legal forms and address words', () => {
  it('mends a misread legal form after a name and an address word, and reports each', () => {
    const r = mend(['KEDAI MAJU SON BHD', 'LOT 5, KAHASAN PERINDUSTRIAN', 'JALAM MERAH 3']);
    expect(r.rows).toEqual(['KEDAI MAJU SDN BHD', 'LOT 5, KAWASAN PERINDUSTRIAN', 'JALAN MERAH 3']);
    expect(r.fixes).toEqual([
      { from: 'SON', to: 'SDN', page: 1 },
      { from: 'KAHASAN', to: 'KAWASAN', page: 1 },
      { from: 'JALAM', to: 'JALAN', page: 1 },
    ]);
  });

  it('adds or drops no letter: a plural or a word a letter short stays as read', () => {
    expect(mend(['ROSE GARDEN', 'TWO STREETS', 'ALAN PRS 1']).fixes).toEqual([]);
  });

  it('leaves a word within reach of two known words as read', () => {
    // "CENTRR" is one letter off both "CENTRE" and "CENTER"; "CENTRX" only off "CENTRE".
    expect(mend(['MEGA CENTRR']).fixes).toEqual([]);
    expect(mend(['MEGA CENTRX']).rows).toEqual(['MEGA CENTRE']);
  });

  it('changes a short word only by letters OCR confuses', () => {
    // "BHX" is one letter off "BHD", but X for D is no OCR confusion; "SON" for "SDN" is (O/D).
    expect(mend(['KEDAI MAJU SDN BHX']).fixes).toEqual([]);
    expect(mend(['JIN KIARA 3']).rows).toEqual(['JLN KIARA 3']);
  });

  it('mends a long word by any one letter', () => {
    expect(mend(['KAWASAN PERINOUSTRIAN BALAKONG']).rows).toEqual(['KAWASAN PERINDUSTRIAN BALAKONG']);
  });

  it('makes a legal form only where one stands: after a name, last or before a form or a registration number', () => {
    expect(mend(['SON BHD']).fixes).toEqual([]); // no name before it
    expect(mend(['MY SON PETER']).fixes).toEqual([]); // a word follows, not a form
    expect(mend(['KEDAI MAJU SON (123456-X)']).rows).toEqual(['KEDAI MAJU SDN (123456-X)']);
    expect(mend(['KEDAI MAJU SDN BED']).rows).toEqual(['KEDAI MAJU SDN BHD']);
  });

  it('reads a closing bracket no bracket opened as D ("SDN BH)")', () => {
    expect(mend(['AMANO MALAYSIA SDN BH) (682283-V )']).rows).toEqual(['AMANO MALAYSIA SDN BHD (682283-V )']);
    // A bracket that closes one opened before it stays a bracket.
    expect(mend(['HARDWARE (BH)']).fixes).toEqual([]);
  });

  it('never turns a word into a word already on its row', () => {
    expect(mend(['KEDAI SDN SON BHD']).fixes).toEqual([]);
  });

  it('mends only the first eight rows, and keeps the case the word was written in', () => {
    const rows = ['Shop', ...Array.from({ length: 8 }, (_, i) => `Line ${i}`), 'Jalam Merah'];
    expect(mend(rows).fixes).toEqual([]);
    expect(mend(['Jalam Merah', 'jin 3']).rows).toEqual(['Jalan Merah', 'jln 3']);
  });
});

describe('shapes a header row tells, and a word repeated in the header', () => {
  /** Rows of words, each "text@conf" (conf 80 when left out); `height` the rows' print height. */
  const pageOf = (rows: string[], height: number[] = []) => ocrPage(rows, { height });
  const rowsOf = (rows: string[], height?: number[]) => {
    const r = mendHeaderWords(pageOf(rows, height), 1);
    return ocrRows(r.words)
      .sort((a, b) => a.y0 - b.y0)
      .map((x) => x.text);
  };

  it('mends the second word of a two-word legal form after its first, only where a form stands', () => {
    expect(rowsOf(['GARDENIA BAKERIES SDN BELD (139386 X)', 'BEMED (SP) SDN. BH.', 'HARBOUR FOODS PTE LT.'])).toEqual([
      'GARDENIA BAKERIES SDN BHD (139386 X)',
      'BEMED (SP) SDN. BHD.',
      'HARBOUR FOODS PTE LTD.',
    ]);
    // A first letter other than the form's, a word following it, no name before it: as read.
    expect(rowsOf(['KEDAI MAJU SDN MHD', 'KEDAI MAJU SDN BHO JALAN', 'SDN BH.'])).toEqual([
      'KEDAI MAJU SDN MHD',
      'KEDAI MAJU SDN BHO JALAN',
      'SDN BH.',
    ]);
  });

  it('reads "S/B" written with digits after a name, before a registration number in any bracket', () => {
    expect(rowsOf(['99 SPEED MART 5/8 {519537-X)', 'PIPE 5/8 INCH'])).toEqual([
      '99 SPEED MART S/B {519537-X)',
      'PIPE 5/8 INCH',
    ]);
  });

  it("reads a company's dotted initials as letters, only on a row that names a company", () => {
    expect(rowsOf(['MR. D.1.¥. (M) SDN BHD', 'VERSION V.1.2.'])).toEqual(['MR. D.I.Y. (M) SDN BHD', 'VERSION V.1.2.']);
  });

  it('reads a title before initials as the one title a confusable letter away', () => {
    expect(rowsOf(['WR. D.I.Y. (M) SDN BHD', 'WR. SMITH', 'KR. A.B.', 'Dr. A.B. Co'])).toEqual([
      'MR. D.I.Y. (M) SDN BHD',
      'WR. SMITH',
      'KR. A.B.',
      'Dr. A.B. Co',
    ]);
  });

  it("reads a floor's ordinal with the one digit that fits its suffix, only before a floor word", () => {
    expect(rowsOf(['BRD FLR, AEON MALL', 'ZND FLOOR', 'BRD AVENUE', 'IST LEVEL'])).toEqual([
      '3RD FLR, AEON MALL',
      '2ND FLOOR',
      'BRD AVENUE',
      '1ST LEVEL',
    ]);
  });

  it('reads an 8 between two unit numbers of one shape, the second higher, as an ampersand', () => {
    expect(rowsOf(['NO. 31G833G, JALAN SETIA', 'NO. 33G831G, JALAN', 'LOT 12A814B', 'NO. 183, JALAN'])).toEqual([
      'NO. 31G&33G, JALAN SETIA',
      'NO. 33G831G, JALAN',
      'LOT 12A814B',
      'NO. 183, JALAN',
    ]);
  });

  it('drops a cent sign after no figure, keeps one after a figure', () => {
    expect(rowsOf(['NO.4 ¢& 6, JALAN SS15/4B', 'COFFEE 50¢'])).toEqual(['NO.4 & 6, JALAN SS15/4B', 'COFFEE 50¢']);
  });

  it('mends a name repeated in the header by its sure reading, at the same size only', () => {
    expect(rowsOf(['12, Jalan Tampoi@92 7/4,Kawasan', 'Tampai,81200@66 Johor'])).toEqual([
      '12, Jalan Tampoi 7/4,Kawasan',
      'Tampoi,81200 Johor',
    ]);
    // Neither reading sure, the doubtful one the surer, or printed at different sizes: as read.
    expect(rowsOf(['Jalan Tampai@49 7/4', 'Tampoi,81200@42 Johor'])).toEqual([
      'Jalan Tampai 7/4',
      'Tampoi,81200 Johor',
    ]);
    expect(rowsOf(['SANYO@96 STATIONERY', 'SANYU@80 SUPPLY SDN BHD'], [60, 30])).toEqual([
      'SANYO STATIONERY',
      'SANYU SUPPLY SDN BHD',
    ]);
    // A known word is not changed into a name one letter off it ("UTAMA" stays beside "UTARA").
    expect(rowsOf(['TAMAN UTARA@95', 'JALAN UTAMA@60'])).toEqual(['TAMAN UTARA', 'JALAN UTAMA']);
  });
});

describe('on a scanned receipt through recogniseImage', () => {
  // A receipt whose issuer reads "MR. (M) SON BHD" and whose address "KAHASAN PERINDUSTRIAN" at
  // every size Tesseract is given.
  const RECEIPT = corpus('c_scanned_images/sroie/448.jpg');
  let tmp: string;
  beforeAll(async () => {
    tmp = await tempDir('ocr-lexicon-');
  });
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));
  const read = async (headerLexicon?: boolean) => {
    const img = await loadImagePage(RECEIPT, 0);
    const r = await recogniseImage(img, { lang: 'eng', timeoutSeconds: 60, pageNumber: 1, tmpDir: tmp, headerLexicon });
    return { text: ocrRows(r.words).map((x) => x.text), lexicon: r.report.lexicon };
  };

  it('mends the legal form and the address word, and reports it; headerLexicon:false keeps the reading', async () => {
    const on = await read();
    expect(on.text.some((t) => /SDN BHD/.test(t))).toBe(true);
    expect(on.text.some((t) => /KAWASAN PERINDUSTRIAN/.test(t))).toBe(true);
    expect(on.lexicon).toEqual(
      expect.arrayContaining([
        { from: 'SON', to: 'SDN', page: 1 },
        { from: 'KAHASAN', to: 'KAWASAN', page: 1 },
      ]),
    );
    const off = await read(false);
    expect(off.lexicon).toBeUndefined();
    expect(off.text.some((t) => /SON BHD/.test(t))).toBe(true);
  }, 180_000);

  it('is on in parsePages unless ocrHeaderLexicon is false', async () => {
    const run = async (ocrHeaderLexicon?: boolean) => {
      const outDir = await tempDir('ocr-lexicon-parse-');
      try {
        const r = await parsePages({
          path: RECEIPT,
          kind: 'image',
          backend: 'ocr',
          outDir,
          renderPages: false,
          ...(ocrHeaderLexicon === undefined ? {} : { ocrHeaderLexicon }),
        });
        return r.pages[0]!;
      } finally {
        await fs.rm(outDir, { recursive: true, force: true });
      }
    };
    const [on, off] = [await run(), await run(false)];
    expect(on.ocr?.lexicon?.length).toBeGreaterThanOrEqual(2);
    expect(on.markdown).toMatch(/KAWASAN PERINDUSTRIAN/);
    expect(off.ocr?.lexicon).toBeUndefined();
    expect(off.markdown).toMatch(/KAHASAN PERINDUSTRIAN/);
  }, 180_000);
});

describe('header shapes on scanned receipts through recogniseImage', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await tempDir('ocr-lexicon-shapes-');
  });
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));
  // Each receipt's header as Tesseract reads it (left) and as the row itself tells it (right).
  it.each([
    ['201', 'D.1.¥.', 'MR. D.I.Y. (M) SDN BHD'],
    ['200', 'WR. D.I.¥.', 'MR. D.I.Y. (M) SDN BHD'],
    ['373', 'BELD', 'GARDENIA BAKERIES (KL) SDN BHD'],
    ['273', 'BH.', 'BEMED (SP) SDN. BHD.'],
    ['276', '5/8', '99 SPEED MART S/B'],
    ['307', 'MALURT', '3RD FLR, AEON TAMAN MALURI SC'],
    ['341', '¢&', 'NO.4 & 6,'],
    ['496', '31G833G,', 'NO. 31G&33G, JALAN SETIA INDAH'],
    ['056', 'Tampai,81200', 'Tampoi,81200 Johor'],
  ])(
    '%s: %s',
    async (n, misread, mended) => {
      const img = await loadImagePage(corpus(`c_scanned_images/sroie/${n}.jpg`), 0);
      const text = async (headerLexicon: boolean) =>
        ocrRows(
          (await recogniseImage(img, { lang: 'eng', timeoutSeconds: 60, pageNumber: 1, tmpDir: tmp, headerLexicon }))
            .words,
        )
          .map((r) => r.text)
          .join('\n');
      const [on, off] = [await text(true), await text(false)];
      expect(off).toContain(misread);
      expect(on).toContain(mended);
    },
    180_000,
  );
});
