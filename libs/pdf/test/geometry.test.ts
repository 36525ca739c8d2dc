import { unionAreaFraction } from '../src/geometry';

describe('unionAreaFraction (auto-backend graphics coverage)', () => {
  it('measures hairlines by their real area, not whole grid cells', () => {
    // 40 rules of 0.5 pt across a 612 x 792 page: 40 * 612 * 0.5 / (612 * 792) = 2.5%.
    const rules = Array.from({ length: 40 }, (_, i) => ({ x0: 0, x1: 612, y0: 100 + i * 10.3, y1: 100.5 + i * 10.3 }));
    expect(unionAreaFraction(rules, 612, 792)).toBeCloseTo(0.0253, 3);
  });

  it('counts overlaps once and clips to the page', () => {
    const a = { x0: 0, y0: 0, x1: 306, y1: 396 };
    expect(unionAreaFraction([a, a, { x0: 100, y0: 100, x1: 200, y1: 200 }], 612, 792)).toBeCloseTo(0.25, 3);
    expect(unionAreaFraction([{ x0: -100, y0: -100, x1: 1000, y1: 1000 }], 612, 792)).toBeCloseTo(1, 3);
  });
});
