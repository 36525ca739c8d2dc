// Figure regions: placed images of a meaningful size, clusters of vector drawings that contain
// curves or diagonals (charts, diagrams), and clusters drawn with a chart's axes: a horizontal and a
// vertical axis each carrying short perpendicular tick marks (a spectrum or histogram drawn with
// straight steps and labels set as outlines has no curve and no text, only its axes say chart).
// Table rulings never make a figure on their own.
import type { Box } from '../geometry';
import { boxArea, emptyBox, expand, intersectionArea, unionBox } from '../geometry';
import type { PageGraphics, Ruling } from '../types';

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
  for (const chart of axedCharts(g, [...solid, ...hair], pageArea, [...cands]))
    cands.push(enclosingForm(chart, g, pageArea));
  return clusterBoxes(cands, 4).filter((b) => !exclude.some((e) => intersectionArea(e, b) > 0.5 * boxArea(b)));
}

/** Longest a tick mark may be, in points and against the axis it sits on. */
const TICK_PT = 6;
const TICK_SHARE = 0.15;
/** Tick marks an axis needs (distinct positions along it). */
const AXIS_TICKS = 4;

/** How far around a chart's axes its tick labels and axis titles are drawn (points). */
const LABEL_MARGIN = 30;

/**
 * Charts found by their axes: a horizontal and a vertical axis with tick marks that touch (one
 * plot's frame; a tick is a rule at most 6 pt long, and under 0.15 of the axis, that stands across
 * the axis and touches it, and an axis needs ticks at 4 distinct positions). The chart is that
 * frame with the drawings that lie wholly within 30 pt of it (tick labels set as outlines, legends);
 * drawings reaching further (a curve clipped to the plot, a page rule), and those of another figure
 * found already (`others`: a neighbouring plot), do not stretch it. A table's
 * rules cross at cell height or width, a comb field has ticks along one axis only, an underline none.
 */
export function axedCharts(g: PageGraphics, drawings: Box[], pageArea: number, others: Box[] = []): Box[] {
  const axes = [...ticked(g.hRules, g.vRules, 'h'), ...ticked(g.vRules, g.hRules, 'v')];
  if (!axes.some((a) => a.dir === 'h') || !axes.some((a) => a.dir === 'v')) return [];
  const frames = clusterBoxes(
    axes.map((a) => expand(a.rule, TICK_PT)),
    2,
  ).filter((f) => {
    const inside = axes.filter((a) => contains(f, a.rule));
    return inside.some((a) => a.dir === 'h') && inside.some((a) => a.dir === 'v');
  });
  // Each drawing in reach goes to the nearest frame (the labels between two plots to their own),
  // and to a frame painted in the same Form XObject before any other (an included graphic's axis
  // title may lie nearer a neighbouring plot than its own).
  const forms = (g.forms ?? []).filter((f) => boxArea(f) <= 0.5 * pageArea);
  const formsOf = (b: Box) => forms.filter((f) => contains(expand(f, 1), b));
  const frameForms = frames.map((fr) => forms.filter((f) => intersectionArea(f, fr) >= 0.8 * boxArea(fr)));
  // A chart starts as its axes (the frames are the axes grown by a tick's length, to meet).
  const charts = frames.map((f) =>
    axes.filter((a) => contains(f, a.rule)).reduce((acc, a) => unionBox(acc, a.rule), emptyBox()),
  );
  for (const d of drawings) {
    // A drawing of another figure (the plot beside this one, found by its curves) stays its own.
    if (others.some((o) => intersectionArea(o, d) > 0 || contains(o, d))) continue;
    const mine = formsOf(d);
    let best = -1,
      bestKey = Infinity;
    frames.forEach((f, i) => {
      const gap = Math.max(0, f.x0 - d.x0, d.x1 - f.x1, f.y0 - d.y0, d.y1 - f.y1);
      if (gap > LABEL_MARGIN) return;
      const key = (frameForms[i]!.some((x) => mine.includes(x)) ? 0 : LABEL_MARGIN + 1) + gap;
      if (key < bestKey) {
        best = i;
        bestKey = key;
      }
    });
    if (best >= 0) Object.assign(charts[best]!, unionBox(charts[best]!, d));
  }
  return charts.filter((c) => boxArea(c) >= 0.01 * pageArea && boxArea(c) <= 0.9 * pageArea);
}

/** Rules of one direction (`dir`) that carry tick marks among the rules of the other. */
function ticked(rules: Ruling[], across: Ruling[], dir: 'h' | 'v'): Array<{ rule: Ruling; dir: 'h' | 'v' }> {
  // Along: the axis's own coordinate (x for a horizontal axis); level: where it lies (y).
  const along = (r: Ruling) => (dir === 'h' ? [r.x0, r.x1] : [r.y0, r.y1]) as [number, number];
  const level = (r: Ruling) => (dir === 'h' ? r.y0 : r.x0);
  // A tick's span across the axis and its position along it.
  const span = (t: Ruling) => (dir === 'h' ? [t.y0, t.y1] : [t.x0, t.x1]) as [number, number];
  const at = (t: Ruling) => (dir === 'h' ? t.x0 : t.y0);
  const short = across.filter((t) => {
    const [a, b] = span(t);
    return b - a <= TICK_PT;
  });
  if (short.length < AXIS_TICKS) return [];
  // Ticks by each whole point their span reaches, so an axis looks up only the ticks at its level.
  const byLevel = new Map<number, Ruling[]>();
  for (const t of short) {
    const [a, b] = span(t);
    for (let v = Math.floor(a) - 1; v <= Math.ceil(b) + 1; v++) {
      const list = byLevel.get(v);
      if (list) list.push(t);
      else byLevel.set(v, [t]);
    }
  }
  const out: Array<{ rule: Ruling; dir: 'h' | 'v' }> = [];
  for (const r of rules) {
    const [a0, a1] = along(r);
    const len = a1 - a0;
    if (TICK_PT > TICK_SHARE * len) continue;
    const y = level(r);
    const positions = new Set<number>();
    for (const t of byLevel.get(Math.round(y)) ?? []) {
      const [s0, s1] = span(t);
      if (s1 - s0 > TICK_SHARE * len || y < s0 - 1 || y > s1 + 1) continue;
      const p = at(t);
      if (p >= a0 - 1 && p <= a1 + 1) positions.add(Math.round(p));
    }
    if (positions.size >= AXIS_TICKS) out.push({ rule: r, dir });
  }
  return out;
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
