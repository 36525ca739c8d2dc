import { eraseLines } from '../src/ocr/raster-rulings';

const white = 255;
const img = (w: number, h: number) => ({ width: w, height: h, channels: 1 as const, data: Buffer.alloc(w * h, 0) });

describe('eraseLines', () => {
  it('whitens a ruling inside the region (padded by half its thickness + 1)', () => {
    const out = eraseLines(img(20, 20), [{ x0: 2, y0: 10, x1: 17, y1: 10, thickness: 1 }], {
      left: 0,
      top: 0,
      width: 20,
      height: 20,
    });
    expect(out.data[10 * 20 + 5]).toBe(white);
    expect(out.data[5 * 20 + 5]).toBe(0);
  });

  it('ignores rulings that lie outside a cropped region instead of throwing (regression: Buffer.fill with a negative end)', () => {
    const region = { left: 30, top: 30, width: 20, height: 20 };
    const lines = [
      { x0: 0, y0: 28, x1: 10, y1: 32, thickness: 2 }, // left of the region, on its top rows
      { x0: 35, y0: 0, x1: 35, y1: 5, thickness: 2 }, // above it
      { x0: 60, y0: 40, x1: 90, y1: 40, thickness: 2 }, // right of it
    ];
    const out = eraseLines(img(100, 100), lines, region);
    expect(out.data.every((v) => v === 0)).toBe(true);
  });
});
