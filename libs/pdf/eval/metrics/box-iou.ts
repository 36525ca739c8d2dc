// Box overlap for table regions. Boxes are [x0, y0, x1, y1] in one coordinate space.
export type Rect = [number, number, number, number];

export function iou(a: Rect, b: Rect): number {
  const ix = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const iy = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const inter = ix * iy;
  const area = (r: Rect) => Math.max(0, r[2] - r[0]) * Math.max(0, r[3] - r[1]);
  const union = area(a) + area(b) - inter;
  return union > 0 ? inter / union : 0;
}

/** PDF points with a bottom-left origin (ICDAR-2013) → top-left origin. */
export function bottomLeftToTopLeft(r: Rect, pageHeight: number): Rect {
  return [r[0], pageHeight - r[3], r[2], pageHeight - r[1]];
}

/** For each ground-truth box, the best IoU among ours (0 when we found none). */
export function bestMatches(gt: Rect[], ours: Rect[]): number[] {
  return gt.map((g) => ours.reduce((m, o) => Math.max(m, iou(g, o)), 0));
}
