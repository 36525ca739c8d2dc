// Splits a sheet into blocks: connected components of non-empty cells, where cells touching by a
// side or a corner belong together and a merged range with a value counts as filled. Then two
// tolerances: blocks whose bounding boxes overlap are one block (a ragged table with an indented
// part), and blocks with the same rows separated by a single empty column are one block (spacer
// columns inside a table). A fully empty row, or an empty column between different row spans,
// separates blocks.
import type { CellRect } from './a1';
import type { SheetView } from './sheet-view';

/** Above this many components a sheet is scattered data; overlap merging is skipped (quadratic). */
const MAX_BLOCKS_FOR_MERGING = 5_000;

export function findBlocks(view: SheetView): CellRect[] {
  const { store } = view;
  const rows = sortedUnion(
    store.rowNumbers,
    view.mergeRows().sort((a, b) => a - b),
  );

  const runRow: number[] = [];
  const runC1: number[] = [];
  const runC2: number[] = [];
  const parent: number[] = [];
  const find = (x: number): number => {
    let root = x;
    while (parent[root] !== root) root = parent[root]!;
    while (parent[x] !== root) {
      const next = parent[x]!;
      parent[x] = root;
      x = next;
    }
    return root;
  };
  const union = (a: number, b: number) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb);
  };

  let prevStart = 0;
  let prevEnd = 0;
  let prevRow = -2;
  for (const r of rows) {
    const intervals = rowIntervals(view, r);
    const curStart = runRow.length;
    for (const [c1, c2] of intervals) {
      parent.push(runRow.length);
      runRow.push(r);
      runC1.push(c1);
      runC2.push(c2);
    }
    const curEnd = runRow.length;
    if (prevRow === r - 1) {
      let p = prevStart;
      for (let b = curStart; b < curEnd; b++) {
        while (p < prevEnd && runC2[p]! < runC1[b]! - 1) p++;
        for (let q = p; q < prevEnd && runC1[q]! <= runC2[b]! + 1; q++) union(b, q);
      }
    }
    prevStart = curStart;
    prevEnd = curEnd;
    prevRow = r;
  }

  const boxes = new Map<number, CellRect>();
  for (let i = 0; i < runRow.length; i++) {
    const root = find(i);
    const box = boxes.get(root);
    if (!box) boxes.set(root, { startRow: runRow[i]!, endRow: runRow[i]!, startCol: runC1[i]!, endCol: runC2[i]! });
    else {
      box.endRow = Math.max(box.endRow, runRow[i]!);
      box.startCol = Math.min(box.startCol, runC1[i]!);
      box.endCol = Math.max(box.endCol, runC2[i]!);
    }
  }
  const blocks = [...boxes.values()];
  return blocks.length > MAX_BLOCKS_FOR_MERGING ? sortBlocks(blocks) : sortBlocks(mergeBlocks(blocks));
}

/** Union of two ascending lists, ascending and without repeats. */
function sortedUnion(a: ArrayLike<number>, b: number[]): number[] {
  if (b.length === 0) return Array.from(a);
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
    if (out.length === 0 || out[out.length - 1] !== next) out.push(next);
  }
  return out;
}

/** Column intervals shown in row r: runs of adjacent cells, merged ranges included. */
function rowIntervals(view: SheetView, r: number): Array<[number, number]> {
  const { store } = view;
  const out: Array<[number, number]> = [];
  const range = store.rowRange(r);
  if (range) {
    for (let i = range[0]; i < range[1]; i++) {
      const c = store.col[i]!;
      const last = out[out.length - 1];
      if (last && c <= last[1] + 1) last[1] = Math.max(last[1], c);
      else out.push([c, c]);
    }
  }
  const merges = view.mergesInRow(r);
  if (merges) {
    for (const m of merges) out.push([m.startCol, m.endCol]);
    out.sort((a, b) => a[0] - b[0]);
    const merged: Array<[number, number]> = [];
    for (const iv of out) {
      const last = merged[merged.length - 1];
      if (last && iv[0] <= last[1] + 1) last[1] = Math.max(last[1], iv[1]);
      else merged.push([iv[0], iv[1]]);
    }
    return merged;
  }
  return out;
}

function overlaps(a: CellRect, b: CellRect): boolean {
  return a.startRow <= b.endRow && b.startRow <= a.endRow && a.startCol <= b.endCol && b.startCol <= a.endCol;
}

function spacerColumnApart(a: CellRect, b: CellRect): boolean {
  if (a.startRow !== b.startRow || a.endRow !== b.endRow || a.endRow === a.startRow) return false;
  return b.startCol - a.endCol === 2 || a.startCol - b.endCol === 2;
}

function mergeBlocks(input: CellRect[]): CellRect[] {
  const blocks = input.map((b) => ({ ...b }));
  let changed = true;
  while (changed) {
    changed = false;
    blocks.sort((a, b) => a.startRow - b.startRow || a.startCol - b.startCol);
    for (let i = 0; i < blocks.length; i++) {
      const a = blocks[i]!;
      for (let j = i + 1; j < blocks.length && blocks[j]!.startRow <= a.endRow; j++) {
        const b = blocks[j]!;
        if (!overlaps(a, b) && !spacerColumnApart(a, b)) continue;
        a.startRow = Math.min(a.startRow, b.startRow);
        a.endRow = Math.max(a.endRow, b.endRow);
        a.startCol = Math.min(a.startCol, b.startCol);
        a.endCol = Math.max(a.endCol, b.endCol);
        blocks.splice(j, 1);
        j = i;
        changed = true;
      }
    }
  }
  return blocks;
}

function sortBlocks(blocks: CellRect[]): CellRect[] {
  return blocks.sort((a, b) => a.startRow - b.startRow || a.startCol - b.startCol);
}
