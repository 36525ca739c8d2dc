// Rulings → candidate table regions. Two shapes are recognised: lattices (horizontal and
// vertical rules that intersect) and rule stacks (booktabs-style tables with horizontal rules
// only, whose columns then come from text alignment).
import type { Box } from '../geometry';
import type { Ruling } from '../types';

export interface RulingRegion extends Box {
  hRules: Ruling[];
  vRules: Ruling[];
  kind: 'lattice' | 'stack';
}

const TOL = 2.5;

export function mergeRulings(rules: Ruling[], horizontal: boolean): Ruling[] {
  // Normalise so "pos" is the constant coordinate and [a, b] the extent.
  const items = rules
    .map((r) => (horizontal ? { pos: r.y0, a: r.x0, b: r.x1 } : { pos: r.x0, a: r.y0, b: r.y1 }))
    .filter((r) => r.b - r.a >= 3)
    .sort((p, q) => p.pos - q.pos || p.a - q.a);
  const merged: Array<{ pos: number; a: number; b: number }> = [];
  for (const it of items) {
    const hit = merged.find((m) => Math.abs(m.pos - it.pos) <= 1.5 && it.a <= m.b + 2 && it.b >= m.a - 2);
    if (hit) {
      hit.a = Math.min(hit.a, it.a);
      hit.b = Math.max(hit.b, it.b);
    } else merged.push({ ...it });
  }
  // A second pass joins pieces that became adjacent after the first.
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = 0; i < merged.length && !changed; i++) {
      for (let j = i + 1; j < merged.length; j++) {
        const p = merged[i]!,
          q = merged[j]!;
        if (Math.abs(p.pos - q.pos) <= 1.5 && q.a <= p.b + 2 && q.b >= p.a - 2) {
          p.a = Math.min(p.a, q.a);
          p.b = Math.max(p.b, q.b);
          merged.splice(j, 1);
          changed = true;
          break;
        }
      }
    }
  }
  return merged.map((m) =>
    horizontal ? { x0: m.a, y0: m.pos, x1: m.b, y1: m.pos } : { x0: m.pos, y0: m.a, x1: m.pos, y1: m.b },
  );
}

const touches = (h: Ruling, v: Ruling) =>
  v.x0 >= h.x0 - TOL && v.x0 <= h.x1 + TOL && h.y0 >= v.y0 - TOL && h.y0 <= v.y1 + TOL;

/**
 * `cuts`: heights of caption lines. Rules above and below a caption belong to two tables (a caption
 * starts a new table), so a stack of rules never reaches across one.
 */
export function findRulingRegions(
  hIn: Ruling[],
  vIn: Ruling[],
  pageW: number,
  pageH: number,
  cuts: number[] = [],
): RulingRegion[] {
  // Rules spanning (almost) the whole page are decoration (page frames, header bars).
  const hs = mergeRulings(hIn, true).filter((r) => r.x1 - r.x0 < pageW * 0.98);
  const vs = mergeRulings(vIn, false).filter((r) => r.y1 - r.y0 < pageH * 0.95);
  const parent = new Map<Ruling, Ruling>();
  const find = (r: Ruling): Ruling => {
    let p = parent.get(r) ?? r;
    while (p !== (parent.get(p) ?? p)) p = parent.get(p)!;
    return p;
  };
  const union = (a: Ruling, b: Ruling) => {
    const ra = find(a),
      rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  for (const h of hs) for (const v of vs) if (touches(h, v)) union(h, v);

  const groups = new Map<Ruling, { h: Ruling[]; v: Ruling[] }>();
  for (const h of hs) {
    const g = groups.get(find(h)) ?? { h: [], v: [] };
    g.h.push(h);
    groups.set(find(h), g);
  }
  for (const v of vs) {
    const g = groups.get(find(v)) ?? { h: [], v: [] };
    g.v.push(v);
    groups.set(find(v), g);
  }

  const regions: RulingRegion[] = [];
  const loose: Ruling[] = [];
  for (const g of groups.values()) {
    const distinctH = new Set(g.h.map((r) => Math.round(r.y0))).size;
    const distinctV = new Set(g.v.map((r) => Math.round(r.x0))).size;
    if (distinctH >= 2 && distinctV >= 2)
      regions.push({ ...bounds([...g.h, ...g.v]), hRules: g.h, vRules: g.v, kind: 'lattice' });
    else if (g.v.length === 0) loose.push(...g.h);
    else if (distinctH >= 2) regions.push({ ...bounds([...g.h, ...g.v]), hRules: g.h, vRules: g.v, kind: 'stack' });
    else loose.push(...g.h);
  }
  // Stacks: horizontal rules of (nearly) the same extent above each other.
  loose.sort((a, b) => a.y0 - b.y0);
  const used = new Set<Ruling>();
  for (const r of loose) {
    if (used.has(r) || r.x1 - r.x0 < 40) continue;
    const stack = [r];
    for (const o of loose) {
      if (o === r || used.has(o) || o.y0 <= stack[stack.length - 1]!.y0) continue;
      if (cuts.some((y) => y > stack[stack.length - 1]!.y0 && y < o.y0)) break;
      const sameExtent =
        Math.abs(o.x0 - r.x0) < 0.06 * (r.x1 - r.x0) + 3 && Math.abs(o.x1 - r.x1) < 0.06 * (r.x1 - r.x0) + 3;
      const inside = o.x0 >= r.x0 - 3 && o.x1 <= r.x1 + 3 && o.x1 - o.x0 > 0.3 * (r.x1 - r.x0);
      if ((sameExtent || inside) && o.y0 - stack[stack.length - 1]!.y0 < 260) stack.push(o);
    }
    const full = stack.filter(
      (o) => Math.abs(o.x0 - r.x0) < 0.06 * (r.x1 - r.x0) + 3 && Math.abs(o.x1 - r.x1) < 0.06 * (r.x1 - r.x0) + 3,
    );
    if (full.length >= 2) {
      const last = full[full.length - 1]!;
      const members = stack.filter((o) => o.y0 <= last.y0);
      members.forEach((o) => used.add(o));
      regions.push({ ...bounds(members), hRules: members, vRules: [], kind: 'stack' });
    }
  }
  return regions.filter((r) => r.x1 - r.x0 > 30 && r.y1 - r.y0 > 8);
}

function bounds(rules: Ruling[]): Box {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (const r of rules) {
    x0 = Math.min(x0, r.x0);
    y0 = Math.min(y0, r.y0);
    x1 = Math.max(x1, r.x1);
    y1 = Math.max(y1, r.y1);
  }
  return { x0, y0, x1, y1 };
}
