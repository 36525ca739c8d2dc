// ICDAR-2013 table competition ground truth: -str.xml (cells) and -reg.xml (regions).
// Coordinates are PDF points with a bottom-left origin; `page` is 1-based.
import type { Rect } from './box-iou';

export interface IcdarCell {
  row: number;
  col: number;
  endRow: number;
  endCol: number;
  text: string;
  box: Rect;
}
export interface IcdarTable {
  page: number;
  box: Rect;
  cells: IcdarCell[];
}

const attr = (tag: string, name: string) =>
  new RegExp(`${name}='([^']*)'|${name}="([^"]*)"`)
    .exec(tag)
    ?.slice(1)
    .find((v) => v !== undefined);
const bbox = (s: string): Rect => {
  const m = /<bounding-box([^>]*)\/?>/.exec(s);
  return m ? (['x1', 'y1', 'x2', 'y2'].map((k) => Number(attr(m[1]!, k))) as Rect) : [0, 0, 0, 0];
};
const unescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

export function parseIcdarStructure(xml: string): IcdarTable[] {
  const tables: IcdarTable[] = [];
  for (const region of xml.matchAll(/<region([^>]*)>([\s\S]*?)<\/region>/g)) {
    const page = Number(attr(region[1]!, 'page') ?? 1);
    const cells: IcdarCell[] = [];
    for (const cell of region[2]!.matchAll(/<cell([^>]*)>([\s\S]*?)<\/cell>/g)) {
      const a = cell[1]!;
      const row = Number(attr(a, 'start-row')),
        col = Number(attr(a, 'start-col'));
      const text = unescape(/<content>([\s\S]*?)<\/content>/.exec(cell[2]!)?.[1] ?? '');
      cells.push({
        row,
        col,
        endRow: Number(attr(a, 'end-row') ?? row),
        endCol: Number(attr(a, 'end-col') ?? col),
        text,
        box: bbox(cell[2]!),
      });
    }
    const xs = cells.flatMap((c) => [c.box[0], c.box[2]]),
      ys = cells.flatMap((c) => [c.box[1], c.box[3]]);
    tables.push({ page, cells, box: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)] });
  }
  return tables;
}

export function parseIcdarRegions(xml: string): Array<{ page: number; box: Rect }> {
  return [...xml.matchAll(/<region([^>]*)>([\s\S]*?)<\/region>/g)].map((m) => ({
    page: Number(attr(m[1]!, 'page') ?? 1),
    box: bbox(m[2]!),
  }));
}
