// Figure regions: placed images of a meaningful size, and clusters of vector drawings that
// contain curves or diagonals (charts, diagrams). Table rulings never make a figure on their own.
import type { Box } from '../geometry';
import { boxArea, expand, intersectionArea, unionBox } from '../geometry';
import type { PageGraphics } from '../types';

export function detectFigures(
  g: PageGraphics,
  width: number,
  height: number,
  textChars: number,
  exclude: Box[],
): Box[] {
  const pageArea = width * height;
  const cands: Box[] = [];
  for (const img of g.images) {
    const a = boxArea(img);
    if (a < 0.004 * pageArea || img.x1 - img.x0 < 16 || img.y1 - img.y0 < 16) continue;
    // A page-sized image under a real text layer is a scan background, not a figure.
    if (a > 0.8 * pageArea && textChars > 200) continue;
    cands.push(img);
  }
  const notExcluded = (b: Box) => !exclude.some((e) => intersectionArea(e, b) > 0.5 * Math.max(1, boxArea(b)));
  // Hairlines (rules, underlines, table borders) would chain unrelated graphics together across
  // the page, so clusters grow from solid drawings and only then absorb nearby hairlines.
  const isHairline = (b: Box) => Math.min(b.x1 - b.x0, b.y1 - b.y0) < 3;
  const solid = g.drawings.filter((b) => notExcluded(b) && !isHairline(b));
  const hair = g.drawings.filter((b) => notExcluded(b) && isHairline(b));
  const shapes = g.shapes.filter(notExcluded);
  if (shapes.length) {
    for (const seed of clusterBoxes([...solid, ...shapes], 10)) {
      const cluster = hair.filter((h) => contains(expand(seed, 12), h)).reduce((acc, h) => unionBox(acc, h), seed);
      const a = boxArea(cluster);
      if (a < 0.01 * pageArea || a > 0.9 * pageArea) continue;
      const inner = shapes.filter((s) => intersectionArea(s, cluster) > 0.5 * Math.max(1, boxArea(s)));
      const shapeArea = inner.reduce((s, b) => s + boxArea(b), 0);
      if (inner.length >= 2 || shapeArea > 0.2 * a) cands.push(enclosingForm(plotFrame(cluster, g), g, pageArea));
    }
  }
  return clusterBoxes(cands, 4).filter((b) => !exclude.some((e) => intersectionArea(e, b) > 0.5 * boxArea(b)));
}

/**
 * Drawings painted inside a Form XObject whose BBox frames them (an included PDF or EPS graphic)
 * belong to one graphic that extends to that BBox: its axis ticks, labels and legends lie outside
 * the curves and their frame but inside the form. The largest such form below half the page is
 * taken (nested forms are parts of one graphic); larger ones wrap page content, not a graphic.
 */
function enclosingForm(cluster: Box, g: PageGraphics, pageArea: number): Box {
  let best: Box | undefined;
  for (const f of g.forms ?? []) {
    const a = boxArea(f);
    if (a > 0.5 * pageArea || a < boxArea(cluster)) continue;
    if (intersectionArea(f, cluster) < 0.9 * Math.max(1, boxArea(cluster))) continue;
    if (!best || a > boxArea(best)) best = f;
  }
  return best ? unionBox(cluster, best) : cluster;
}

/**
 * A chart's curves sit inside its plot frame (axes and border, drawn as hairlines), which may reach
 * well beyond the curves: the figure is the frame when a rule above and a rule below both span the
 * curves and neither reaches much further than a frame around them would.
 */
function plotFrame(curves: Box, g: PageGraphics): Box {
  const w = curves.x1 - curves.x0,
    h = curves.y1 - curves.y0;
  const spans = (r: Box) =>
    r.x0 <= curves.x0 + 2 && r.x1 >= curves.x1 - 2 && r.x1 - r.x0 <= 1.6 * w && r.x1 - r.x0 <= w + 2 * h;
  const near = (y: number) => Math.abs(y) <= Math.max(h, 36);
  const above = g.hRules.filter((r) => spans(r) && r.y1 <= curves.y0 + 2 && near(curves.y0 - r.y1));
  const below = g.hRules.filter((r) => spans(r) && r.y0 >= curves.y1 - 2 && near(r.y0 - curves.y1));
  if (!above.length || !below.length) return curves;
  const top = above.reduce((a, b) => (b.y0 < a.y0 ? b : a)),
    bottom = below.reduce((a, b) => (b.y1 > a.y1 ? b : a));
  return unionBox(unionBox(curves, top), bottom);
}

/** Merges boxes whose expanded bounds touch, repeatedly, so frames absorb what they enclose. */
export function clusterBoxes(boxes: Box[], gap: number): Box[] {
  let clusters = boxes.length > 1500 ? bucket(boxes, 16) : boxes.map((b) => ({ ...b }));
  let merged = true;
  while (merged && clusters.length > 1) {
    merged = false;
    const next: Box[] = [];
    for (const b of clusters) {
      const hit = next.find((n) => intersectionArea(expand(n, gap), b) > 0 || touchesEdge(expand(n, gap), b));
      if (hit) {
        Object.assign(hit, unionBox(hit, b));
        merged = true;
      } else next.push({ ...b });
    }
    clusters = next;
  }
  return clusters;
}

// Zero-area boxes (hairlines) have no intersection area; treat overlapping extents as touching.
function touchesEdge(a: Box, b: Box): boolean {
  return a.x0 <= b.x1 && b.x0 <= a.x1 && a.y0 <= b.y1 && b.y0 <= a.y1;
}

/** Pre-merges boxes per coarse grid cell so pages with tens of thousands of strokes stay linear. */
function bucket(boxes: Box[], cell: number): Box[] {
  const map = new Map<string, Box>();
  for (const b of boxes) {
    const key = `${Math.floor(b.x0 / cell)}:${Math.floor(b.y0 / cell)}`;
    const cur = map.get(key);
    map.set(key, cur ? unionBox(cur, b) : { ...b });
  }
  return [...map.values()];
}

const contains = (outer: Box, inner: Box) =>
  inner.x0 >= outer.x0 && inner.x1 <= outer.x1 && inner.y0 >= outer.y0 && inner.y1 <= outer.y1;
