// Walks a pdf.js operator list and records where images and vector drawings land on the page.
// Used twice: by the auto-backend rule (how much of the page is graphics) and by layout
// (figure regions, table rulings). pdf.js 5 emits paths as
// constructPath(paintOp, [Float32Array of DrawOPS], minMax) in the current user space.
import type { Box, Matrix } from '../geometry';
import { applyPoint, boxArea, clipBox, multiply, transformBox } from '../geometry';
import type { PageGraphics } from '../types';
import { OP } from '../pdfjs-ops';

interface OperatorList {
  fnArray: number[];
  argsArray: unknown[];
}

const DRAW = { moveTo: 0, lineTo: 1, curveTo: 2, closePath: 3 } as const;

const STROKES = new Set<number>([
  OP.stroke,
  OP.closeStroke,
  OP.fillStroke,
  OP.eoFillStroke,
  OP.closeFillStroke,
  OP.closeEOFillStroke,
]);
const FILLS = new Set<number>([
  OP.fill,
  OP.eoFill,
  OP.fillStroke,
  OP.eoFillStroke,
  OP.closeFillStroke,
  OP.closeEOFillStroke,
]);
const IMAGE_OPS = new Set<number>([
  OP.paintImageMaskXObject,
  OP.paintImageMaskXObjectGroup,
  OP.paintImageXObject,
  OP.paintInlineImageXObject,
  OP.paintInlineImageXObjectGroup,
  OP.paintSolidColorImageMask,
]);

/** Rulings thinner than this (points) count as lines, thicker filled rects as shading. */
const THIN = 2.5;

interface State {
  ctm: Matrix;
  lineWidth: number;
  fill: string;
  stroke: string;
}

/**
 * @param viewportTransform pdf.js viewport transform at scale 1 (PDF user space → top-left points).
 */
export function scanGraphics(
  ops: OperatorList,
  viewportTransform: number[],
  width: number,
  height: number,
): PageGraphics {
  const scanner = new GraphicsScanner(viewportTransform, width, height);
  scanner.push(ops.fnArray, ops.argsArray, ops.fnArray.length);
  return scanner.graphics;
}

/**
 * The same walk fed chunk by chunk (walkOperators), so a page's operator list never has to exist
 * whole. Graphics state (CTM stack, colours, the last clip) carries over between chunks.
 * `maxItems` bounds the boxes kept: past it `overflowed` is set and nothing more is recorded.
 */
export class GraphicsScanner {
  readonly graphics: PageGraphics = { images: [], drawings: [], hRules: [], vRules: [], fillRects: [], shapes: [] };
  overflowed = false;
  private st: State;
  private readonly stack: State[] = [];
  private lastClip: Box | undefined;
  private readonly page: Box;
  private readonly keep: (b: Box) => Box | undefined;

  constructor(
    viewportTransform: number[],
    private readonly width: number,
    private readonly height: number,
    private readonly maxItems = Infinity,
  ) {
    this.st = { ctm: viewportTransform.slice(0, 6) as Matrix, lineWidth: 1, fill: '#000000', stroke: '#000000' };
    this.page = { x0: 0, y0: 0, x1: width, y1: height };
    this.keep = (b: Box): Box | undefined => {
      const c = clipBox(b, this.width, this.height);
      return c.x1 > c.x0 || c.y1 > c.y0 ? c : undefined;
    };
  }

  /** Boxes recorded so far (all kinds). */
  get items(): number {
    const g = this.graphics;
    return (
      g.images.length + g.drawings.length + g.hRules.length + g.vRules.length + g.fillRects.length + g.shapes.length
    );
  }

  push(fnArray: ArrayLike<number>, argsArray: ArrayLike<unknown>, length: number): void {
    const out = this.graphics;
    const keep = this.keep;
    for (let i = 0; i < length; i++) {
      const fn = fnArray[i]!;
      const args = argsArray[i] as unknown[] | null;
      const st = this.st;
      switch (fn) {
        case OP.save:
          this.stack.push({ ...st });
          break;
        case OP.restore:
          this.st = this.stack.pop() ?? st;
          break;
        case OP.transform:
          st.ctm = multiply(args as unknown as Matrix, st.ctm);
          break;
        case OP.setLineWidth:
          st.lineWidth = Number(args?.[0] ?? 1);
          break;
        case OP.setFillRGBColor:
          st.fill = String(args?.[0] ?? '#000000').toLowerCase();
          break;
        case OP.setFillTransparent:
          st.fill = 'transparent';
          break;
        case OP.setStrokeRGBColor:
          st.stroke = String(args?.[0] ?? '#000000').toLowerCase();
          break;
        case OP.setStrokeTransparent:
          st.stroke = 'transparent';
          break;
        case OP.paintFormXObjectBegin: {
          this.stack.push({ ...st });
          const m = args?.[0] as Matrix | null;
          if (Array.isArray(m) || ArrayBuffer.isView(m))
            st.ctm = multiply(Array.from(m as ArrayLike<number>) as Matrix, st.ctm);
          const bb = args?.[1] as ArrayLike<number> | null | undefined;
          if (bb && bb.length === 4 && !this.overflowed) {
            const f = keep(transformBox(st.ctm, bb[0]!, bb[1]!, bb[2]!, bb[3]!));
            if (f) (out.forms ??= []).push(f);
          }
          break;
        }
        case OP.paintFormXObjectEnd:
          this.st = this.stack.pop() ?? st;
          break;
        case OP.constructPath: {
          const paint = Number(args?.[0]);
          const data = (args?.[1] as unknown[] | undefined)?.[0] as ArrayLike<number> | null | undefined;
          if (!data) break;
          if (paint === OP.endPath) {
            this.lastClip = pathBounds(data, st.ctm);
            break;
          }
          if (this.overflowed) break;
          addPath(
            out,
            data,
            st,
            STROKES.has(paint) && st.stroke !== 'transparent',
            FILLS.has(paint) && st.fill !== 'transparent',
            keep,
          );
          break;
        }
        case OP.shadingFill: {
          const b = keep(this.lastClip ?? this.page);
          if (b && !this.overflowed) out.drawings.push(b);
          break;
        }
        case OP.paintImageXObjectRepeat:
        case OP.paintImageMaskXObjectRepeat: {
          if (this.overflowed) break;
          // [objId, scaleX, scaleY, positions] / [img, scaleX, skewX, skewY, scaleY, positions]
          const a = args ?? [];
          const mask = fn === OP.paintImageMaskXObjectRepeat;
          const sx = Number(a[1]);
          const sy = Number(mask ? a[4] : a[2]);
          const pos = (mask ? a[5] : a[3]) as ArrayLike<number> | undefined;
          for (let k = 0; pos && k + 1 < pos.length; k += 2) {
            const m = multiply([sx, 0, 0, sy, pos[k]!, pos[k + 1]!], st.ctm);
            const b = keep(transformBox(m, 0, 0, 1, 1));
            if (b) out.images.push(b);
          }
          break;
        }
        default:
          if (IMAGE_OPS.has(fn) && !this.overflowed) {
            const b = keep(transformBox(st.ctm, 0, 0, 1, 1));
            if (b) out.images.push(b);
          }
      }
    }
    if (!this.overflowed && this.items > this.maxItems) this.overflowed = true;
  }
}

function pathBounds(data: ArrayLike<number>, ctm: Matrix): Box {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  forEachPoint(data, (x, y) => {
    const [px, py] = applyPoint(ctm, x, y);
    if (px < x0) x0 = px;
    if (px > x1) x1 = px;
    if (py < y0) y0 = py;
    if (py > y1) y1 = py;
  });
  return { x0, y0, x1, y1 };
}

function forEachPoint(data: ArrayLike<number>, cb: (x: number, y: number) => void): void {
  for (let i = 0; i < data.length;) {
    const op = data[i++];
    if (op === DRAW.moveTo || op === DRAW.lineTo) {
      cb(data[i]!, data[i + 1]!);
      i += 2;
    } else if (op === DRAW.curveTo) {
      cb(data[i]!, data[i + 1]!);
      cb(data[i + 2]!, data[i + 3]!);
      cb(data[i + 4]!, data[i + 5]!);
      i += 6;
    } else if (op === DRAW.closePath) {
      /* no coordinates */
    } else break;
  }
}

const isWhite = (c: string) => c === '#ffffff' || c === '#fefefe';

function addPath(
  out: PageGraphics,
  data: ArrayLike<number>,
  st: State,
  stroked: boolean,
  filled: boolean,
  keep: (b: Box) => Box | undefined,
): void {
  if (!stroked && !filled) return;
  // Line width in page points: scale by the CTM's average axis scale.
  const scale = Math.sqrt(Math.abs(st.ctm[0] * st.ctm[3] - st.ctm[1] * st.ctm[2])) || 1;
  const lw = Math.max(st.lineWidth * scale, 0.1);
  // One path often carries many subpaths (a whole table grid as thin filled rectangles), so
  // each subpath is judged on its own.
  for (const sub of subpaths(data, st.ctm)) {
    const { segments, hasCurve, bounds } = sub;
    if (segments.length === 0) continue;
    const diagonal = segments.some(([ax, ay, bx, by]) => Math.abs(ax - bx) > 0.5 && Math.abs(ay - by) > 0.5);
    if ((hasCurve || diagonal) && (filled ? !isWhite(st.fill) : !isWhite(st.stroke))) {
      const b = keep(bounds);
      if (b) out.shapes.push(b);
    }
    if (filled && !isWhite(st.fill)) {
      const w = bounds.x1 - bounds.x0,
        h = bounds.y1 - bounds.y0;
      const rectLike = !hasCurve && !diagonal;
      const midY = (bounds.y0 + bounds.y1) / 2,
        midX = (bounds.x0 + bounds.x1) / 2;
      if (rectLike && h <= THIN && w > h) out.hRules.push({ x0: bounds.x0, y0: midY, x1: bounds.x1, y1: midY });
      else if (rectLike && w <= THIN && h > w) out.vRules.push({ x0: midX, y0: bounds.y0, x1: midX, y1: bounds.y1 });
      else if (rectLike) {
        const b = keep(bounds);
        if (b) out.fillRects.push(b);
      }
      const b = keep(bounds);
      if (b) out.drawings.push(b);
    }
    if (stroked && !isWhite(st.stroke)) {
      for (const [ax, ay, bx, by] of segments) {
        const seg: Box = {
          x0: Math.min(ax, bx) - lw / 2,
          y0: Math.min(ay, by) - lw / 2,
          x1: Math.max(ax, bx) + lw / 2,
          y1: Math.max(ay, by) + lw / 2,
        };
        const b = keep(seg);
        if (b) out.drawings.push(b);
        if (!hasCurve && lw <= THIN * 2) addRuling(out, ax, ay, bx, by);
      }
    }
  }
}

interface Subpath {
  segments: Array<[number, number, number, number]>;
  hasCurve: boolean;
  bounds: Box;
}

function subpaths(data: ArrayLike<number>, ctm: Matrix): Subpath[] {
  const out: Subpath[] = [];
  let cur: Subpath | undefined;
  let cx = 0,
    cy = 0,
    sx = 0,
    sy = 0;
  const touch = (x: number, y: number) => {
    const b = cur!.bounds;
    if (x < b.x0) b.x0 = x;
    if (x > b.x1) b.x1 = x;
    if (y < b.y0) b.y0 = y;
    if (y > b.y1) b.y1 = y;
  };
  for (let i = 0; i < data.length;) {
    const op = data[i++];
    if (op === DRAW.moveTo) {
      [cx, cy] = applyPoint(ctm, data[i]!, data[i + 1]!);
      sx = cx;
      sy = cy;
      i += 2;
      cur = { segments: [], hasCurve: false, bounds: { x0: cx, y0: cy, x1: cx, y1: cy } };
      out.push(cur);
    } else if (op === DRAW.lineTo) {
      const [nx, ny] = applyPoint(ctm, data[i]!, data[i + 1]!);
      i += 2;
      if (!cur) {
        cur = { segments: [], hasCurve: false, bounds: { x0: cx, y0: cy, x1: cx, y1: cy } };
        out.push(cur);
      }
      cur.segments.push([cx, cy, nx, ny]);
      touch(nx, ny);
      cx = nx;
      cy = ny;
    } else if (op === DRAW.curveTo) {
      if (!cur) {
        cur = { segments: [], hasCurve: false, bounds: { x0: cx, y0: cy, x1: cx, y1: cy } };
        out.push(cur);
      }
      for (let k = 0; k < 3; k++) {
        const [px, py] = applyPoint(ctm, data[i + 2 * k]!, data[i + 2 * k + 1]!);
        touch(px, py);
      }
      const [nx, ny] = applyPoint(ctm, data[i + 4]!, data[i + 5]!);
      i += 6;
      cur.hasCurve = true;
      cur.segments.push([cx, cy, nx, ny]);
      cx = nx;
      cy = ny;
    } else if (op === DRAW.closePath) {
      if (cur && (cx !== sx || cy !== sy)) cur.segments.push([cx, cy, sx, sy]);
      cx = sx;
      cy = sy;
    } else break;
  }
  return out;
}

function addRuling(out: PageGraphics, ax: number, ay: number, bx: number, by: number): void {
  if (Math.abs(ay - by) < 0.8 && Math.abs(ax - bx) > 2) {
    const y = (ay + by) / 2;
    out.hRules.push({ x0: Math.min(ax, bx), y0: y, x1: Math.max(ax, bx), y1: y });
  } else if (Math.abs(ax - bx) < 0.8 && Math.abs(ay - by) > 2) {
    const x = (ax + bx) / 2;
    out.vRules.push({ x0: x, y0: Math.min(ay, by), x1: x, y1: Math.max(ay, by) });
  }
}

/** Fraction of the page covered by images and drawings (union, so overlaps count once). */
export function graphicsCoverageBoxes(g: PageGraphics): Box[] {
  return [...g.images, ...g.drawings].filter((b) => boxArea(b) > 0 || b.x1 > b.x0 || b.y1 > b.y0);
}
