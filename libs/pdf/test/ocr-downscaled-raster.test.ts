// A photo wider than a 300-dpi page is read downscaled (recognise.ts); the layout's passes over the
// page (the missed-text check, the ruling scan) want the grey page at that same scale. When nothing
// was cropped or whitened, the image Tesseract read is exactly that page, so it is handed on rather
// than the whole photo resized a second time after Tesseract is done (35 Mpx receipts: 0.14-0.2 s
// each on the critical path; issue 23's time target).
import fs from 'node:fs/promises';
import { ocrImagePage } from '../src/parse/ocr-page';
import { resizeGray, toGray } from '../src/ocr/preprocess';
import { recogniseImage } from '../src/ocr/recognise';
import { loadImagePage, type ImagePage } from '../src/render/image-input';
import { TESTOCR_PNG, tempDir } from './helpers/fixtures';

// Every resize sharp is asked for, counted through the library's own calls.
let resizes = 0;
jest.mock('sharp', () => {
  const actual = jest.requireActual('sharp');
  const wrapped = (...args: unknown[]) => {
    const s = actual(...args);
    const resize = s.resize.bind(s);
    s.resize = (...r: unknown[]) => {
      resizes++;
      return resize(...r);
    };
    return s;
  };
  return Object.assign(wrapped, actual);
});

/** The test page enlarged past a 300-dpi page's width (a phone photo of a page). */
async function widePage(): Promise<ImagePage> {
  const img = await loadImagePage(TESTOCR_PNG, 0);
  const s = 2900 / img.width;
  const g = await resizeGray(toGray(img), s);
  return { ...g, channels: 1, density: 300 };
}

describe('OCR of a photo read downscaled', () => {
  it('hands the image it read on as the page at the reading scale (same pixels as resizing again)', async () => {
    const tmp = await tempDir('ocr-downscaled-');
    try {
      const img = await widePage();
      const r = await recogniseImage(img, { lang: 'eng', timeoutSeconds: 120, pageNumber: 1, tmpDir: tmp });
      expect(r.report.chosen).toMatch(/^downscaled/);
      expect(r.report.paper).toBeUndefined();
      expect(r.report.rulesRemoved).toBe(0);
      expect(r.scaledGray).toBeDefined();
      const again = await resizeGray(r.gray, r.report.scale);
      expect([r.scaledGray!.width, r.scaledGray!.height]).toEqual([again.width, again.height]);
      expect(Buffer.compare(r.scaledGray!.data, again.data)).toBe(0);
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  });

  it('resizes the photo once for the whole page: for the reading, not again for the layout', async () => {
    const tmp = await tempDir('ocr-downscaled-');
    try {
      const img = await widePage();
      resizes = 0;
      const { elements, report } = await ocrImagePage(img, 1, tmp, { dpi: 300, lang: 'eng', timeoutSeconds: 120 });
      expect(report.chosen).toMatch(/^downscaled/);
      expect(elements.map((e) => e.text ?? '').join(' ')).toMatch(/quick brown/i);
      expect(resizes).toBe(1);
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  });
});
