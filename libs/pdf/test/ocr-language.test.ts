// OCR language from evidence on each page: the scripts of a text layer's letters, or Tesseract's
// script detection on a page without one; right-to-left readings in logical order.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parsePages } from '../src';
import {
  installedOcrLanguages,
  languageFromLetters,
  languageFromOsd,
  missingLanguageWarning,
  parseListLangs,
  scriptLetters,
} from '../src/ocr/ocr-language';
import { ocrRows } from '../src/ocr/ocr-layout';
import type { OcrWord } from '../src/ocr/recognise';
import { corpus, tempDir, textPdf } from './helpers/fixtures';

const RTL_PDF = corpus('a_born_digital/docling/right_to_left_01.pdf');
/** The first line of right_to_left_01 in logical order ("Improving productivity and solving problems through programming"). */
/** What is read is tested, not how fast: a loaded machine's pages get more than the service's 120 s. */
const PAGE_SECONDS = 600;
const HEADING = 'تحسين الإنتاجية وحل المشكلات من خلال البرمجة';

const listed = (() => {
  try {
    return parseListLangs(execFileSync('tesseract', ['--list-langs'], { encoding: 'utf8' }));
  } catch {
    return new Set<string>();
  }
})();
const HAS_ARA = listed.has('ara') && listed.has('osd');
/** Runs only where Tesseract has Arabic (scripts/setup.sh installs it; CI runs it). */
const itWithArabic: typeof it = HAS_ARA
  ? it
  : (((name: string, fn?: jest.ProvidesCallback, timeout?: number) =>
      it.skip(
        `${name} [skipped: Tesseract lists no 'ara'/'osd' traineddata here; bash scripts/setup.sh installs tesseract-ocr-ara]`,
        fn,
        timeout,
      )) as typeof it);

describe('OCR language: the choice', () => {
  const all = new Set(['eng', 'osd', 'ara', 'heb']);

  it('reads a page of Arabic letters in Arabic, with English beside it for its Latin words', () => {
    const letters = scriptLetters(['تحسين الإنتاجية وحل المشكلات من خلال البرمجة بلغة', 'R و Python']);
    expect(letters.Arabic).toBeGreaterThan(30);
    expect(letters.Latin).toBe(7);
    expect(languageFromLetters(letters, all)).toEqual({ lang: 'ara+eng', from: 'text_layer', scripts: letters });
    // Hebrew alone: no Latin to keep English for.
    const hebrew = scriptLetters(['שלום עולם, זהו עמוד בעברית בלבד']);
    expect(languageFromLetters(hebrew, all)?.lang).toBe('heb');
  });

  it('keeps the default for Latin pages, a few foreign words, and too few letters to tell', () => {
    expect(languageFromLetters(scriptLetters(['An English page with café and naïve words.']), all)).toBeUndefined();
    const english = 'The word تحسين means improvement; '.repeat(1) + 'plain English text. '.repeat(20);
    expect(languageFromLetters(scriptLetters([english]), all)).toBeUndefined(); // under 10% Arabic
    expect(languageFromLetters(scriptLetters(['Привет']), all)).toBeUndefined(); // 6 letters
  });

  it('falls back to the default, naming the missing language, when its traineddata is not installed', () => {
    const letters = scriptLetters(['Это страница на русском языке, набранная кириллицей.']);
    const c = languageFromLetters(letters, all)!;
    expect(c).toMatchObject({ lang: 'eng', missing: ['rus'] });
    expect(missingLanguageWarning(3, c)).toEqual({
      code: 'ocr_language_missing',
      message: expect.stringMatching(/^Page 3: its text is in Cyrillic, but the OCR language rus is not installed/),
    });
    expect(languageFromLetters(scriptLetters(['تحسين الإنتاجية وحل المشكلات']), new Set(['eng']))).toMatchObject({
      lang: 'eng',
      missing: ['ara'],
    });
    expect(missingLanguageWarning(1, languageFromLetters(scriptLetters(['تحسين الإنتاجية وحل المشكلات']), all)!)).toBe(
      undefined,
    );
  });

  it("follows OSD's script only when it is sure (Latin receipts read badly are named Cyrillic at ~1-2)", () => {
    expect(languageFromOsd({ script: 'Arabic', scriptConfidence: 50 }, all)).toMatchObject({
      lang: 'ara+eng',
      from: 'script_detection',
    });
    expect(languageFromOsd({ script: 'Cyrillic', scriptConfidence: 2.35 }, all)).toBeUndefined();
    expect(languageFromOsd({ script: 'Latin', scriptConfidence: 9.66 }, all)).toBeUndefined();
    expect(languageFromOsd({ script: 'Greek', scriptConfidence: 12 }, all)).toMatchObject({
      lang: 'eng',
      missing: ['ell'],
    });
  });

  it("lists Tesseract's languages once per process", async () => {
    expect(
      parseListLangs('List of available languages in "/usr/share/tesseract-ocr/5/tessdata/" (3):\nara\neng\nosd\n'),
    ).toEqual(new Set(['ara', 'eng', 'osd']));
    const a = installedOcrLanguages();
    expect(installedOcrLanguages()).toBe(a);
    expect(await a).toEqual(listed);
  });
});

describe('OCR rows: right-to-left lines in logical order', () => {
  const word = (text: string, x0: number, x1: number, line = 1): OcrWord => ({
    text,
    conf: 90,
    x0,
    x1,
    y0: 100 * line,
    y1: 100 * line + 30,
    block: 1,
    par: 1,
    line,
  });

  it('reads an Arabic row from the right, its Latin words and numbers left to right', () => {
    // Drawn right to left: "تحسين" at the right edge ... "Python" and "2024" embedded.
    const words = [
      word('تحسين', 900, 1000),
      word('البرمجة', 760, 880),
      word('بلغة', 680, 740),
      word('New', 560, 610),
      word('York', 620, 670),
      word('في', 500, 540),
      word('2024', 400, 480),
    ];
    const [row] = ocrRows([...words].reverse());
    expect(row!.text).toBe('تحسين البرمجة بلغة New York في 2024');
    // A Latin row is untouched.
    expect(ocrRows([word('world', 300, 400), word('Hello', 100, 200)])[0]!.text).toBe('Hello world');
  });
});

describe('OCR language through parsePages', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await tempDir('pdf-ocr-lang-');
  });
  afterAll(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  itWithArabic(
    'reads an image of an Arabic page in Arabic, chosen by script detection, words in logical order',
    async () => {
      // The corpus page as a scan (no text layer): pdftoppm, as a user's scanner would give it.
      const prefix = path.join(tmp, 'rtl');
      execFileSync('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', '-singlefile', RTL_PDF, prefix]);
      const out = path.join(tmp, 'img');
      const res = await parsePages({
        path: `${prefix}.png`,
        kind: 'image',
        backend: 'ocr',
        outDir: out,
        renderPages: false,
        timeoutSeconds: PAGE_SECONDS,
      });
      const page = res.pages[0]!;
      expect(page.ocrLanguage).toMatchObject({ lang: 'ara+eng', from: 'script_detection' });
      expect(page.ocr!.chosen).toMatch(/ara\+eng$/);
      expect(page.markdown).toContain(HEADING);
      // The page reads from its first line's first word, at its right end.
      expect(page.markdown).toMatch(/^#* *تحسين/);
      expect(page.markdown).toContain('مكتبة pandas في Python');
      // Grounding boxes stay in the image's pixels.
      for (const e of page.grounding.elements) expect(e.pixel_bbox[2]).toBeLessThanOrEqual(page.grounding.width);
    },
    300_000,
  );

  itWithArabic(
    "reads an Arabic PDF page in Arabic chosen from its text layer's letters, and takes the layer it now agrees with",
    async () => {
      const out = path.join(tmp, 'pdf');
      const [ocr, text] = await Promise.all([
        parsePages({ path: RTL_PDF, kind: 'pdf', backend: 'ocr', outDir: out, renderPages: false }),
        parsePages({ path: RTL_PDF, kind: 'pdf', backend: 'text', outDir: `${out}-text`, renderPages: false }),
      ]);
      const page = ocr.pages[0]!;
      expect(page.ocrLanguage).toMatchObject({ lang: 'ara+eng', from: 'text_layer' });
      expect(page.ocrLanguage!.scripts.Arabic).toBeGreaterThan(1000);
      expect(page.textLayer).toMatchObject({ used: true });
      expect(page.textLayer!.agreement).toBeGreaterThan(0.9);
      expect(page.markdown).toContain(HEADING);
      expect(page.markdown).toBe(text.pages[0]!.markdown);
    },
    300_000,
  );

  it('leaves a Latin page with an explicit or default language alone', async () => {
    const file = path.join(tmp, 'latin.pdf');
    await fs.writeFile(file, await textPdf(['A plain English page of text.\n'.repeat(12)]));
    const auto = await parsePages({ path: file, kind: 'pdf', backend: 'ocr', outDir: path.join(tmp, 'l1') });
    expect(auto.pages[0]!.ocrLanguage).toBeUndefined();
    expect(auto.pages[0]!.markdown).toContain('A plain English page of text.');
  }, 120_000);

  itWithArabic(
    'respects a language the caller names: no choice is made for the page',
    async () => {
      const out = path.join(tmp, 'fixed');
      const res = await parsePages({
        path: RTL_PDF,
        kind: 'pdf',
        backend: 'ocr',
        outDir: out,
        renderPages: false,
        timeoutSeconds: PAGE_SECONDS,
        ocrLang: 'eng',
      });
      expect(res.pages[0]!.ocrLanguage).toBeUndefined();
      expect(res.pages[0]!.markdown).not.toContain(HEADING);
    },
    300_000,
  );
});
