// The grey page an image's reading is prepared from is the whole page (before the border crop) and
// comes back with the words, so the layout's ruling scan of a tabular page uses it instead of
// converting the colour image a second time (issue 23.1 time).
import fs from 'node:fs/promises';
import { prepareFirstReading, recogniseImage } from '../src/ocr/recognise';
import { otsuThreshold, toGray } from '../src/ocr/preprocess';
import { missedInk } from '../src/ocr/missed-text-pass';
import { loadImagePage } from '../src/render/image-input';
import type { RawImage } from '../src/render/ppm';
import { TESTOCR_PNG, tempDir } from './helpers/fixtures';

/** A white RGB page with a dark scanner border and a few coloured strokes. */
function borderedPage(width: number, height: number, border: number): RawImage {
  const data = Buffer.alloc(width * height * 3, 255);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      if (x < border || y < border || x >= width - border || y >= height - border) data.fill(20, i, i + 3);
      else if (y % 40 < 6 && x % 30 < 20) {
        data[i] = 200;
        data[i + 1] = 40;
        data[i + 2] = 90;
      }
    }
  return { width, height, channels: 3, data };
}

describe('OCR of an image: the grey page', () => {
  it('is the whole page in grey, while the first reading is the cropped paper', async () => {
    const img = borderedPage(400, 600, 30);
    const first = await prepareFirstReading(img);
    expect([first.gray.width, first.gray.height]).toEqual([400, 600]);
    expect(first.gray.data.equals(toGray(img).data)).toBe(true);
    expect(first.paper.x).toBeGreaterThan(0);
    expect(first.clean.width).toBeLessThan(400);
  });

  it('comes back from the reading with the words, the same pixels as converting the image again', async () => {
    const tmp = await tempDir('ocr-gray-');
    try {
      const img = await loadImagePage(TESTOCR_PNG, 0);
      expect(img.channels).toBe(3);
      const { words, gray, grayThreshold } = await recogniseImage(img, {
        lang: 'eng',
        timeoutSeconds: 120,
        pageNumber: 1,
        tmpDir: tmp,
      });
      expect(words.length).toBeGreaterThan(10);
      const again = toGray(img);
      expect([gray.width, gray.height]).toEqual([again.width, again.height]);
      expect(gray.data.equals(again.data)).toBe(true);
      // With its ink threshold, measured while Tesseract read the page, which the missed-text pass
      // then uses instead of measuring it again: the same threshold, so the same ink counted.
      expect(grayThreshold).toBe(otsuThreshold(again));
      expect(missedInk(gray, words, 1, grayThreshold)).toEqual(missedInk(again, words, 1));
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  });
});
