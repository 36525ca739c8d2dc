// Split windows: a long PDF is sent to the model a few pages at a time. Windows overlap, so every
// page after the first has its predecessor in some window and a boundary on it can be seen; the
// repair pass (repair.ts) then decides each page from the window where it sits furthest from an
// edge, which removes the false "first page of the window" boundaries.
import { evidencePages, segmentPage, type Evidence } from '@docfleet/models';

export interface SplitWindow {
  index: number;
  first: number;
  last: number;
}

export const DEFAULT_WINDOW_PAGES = 10;
export const DEFAULT_WINDOW_OVERLAP = 2;

/** Windows over pages 1..pageCount of `size` pages, consecutive ones sharing `overlap` pages (≥ 1). */
export function planWindows(
  pageCount: number,
  size = DEFAULT_WINDOW_PAGES,
  overlap = DEFAULT_WINDOW_OVERLAP,
): SplitWindow[] {
  const width = Math.max(2, Math.floor(size));
  const shared = Math.min(width - 1, Math.max(1, Math.floor(overlap)));
  const windows: SplitWindow[] = [];
  if (pageCount < 1) return windows;
  for (let first = 1; ; first += width - shared) {
    const last = Math.min(pageCount, first + width - 1);
    windows.push({ index: windows.length, first, last });
    if (last >= pageCount) break;
  }
  return windows;
}

/** The evidence of one window: its pages, their segments and their grounding pages only. */
export function windowEvidence(ev: Evidence, w: Pick<SplitWindow, 'first' | 'last'>): Evidence {
  const inside = (n: number) => n >= w.first && n <= w.last;
  const pages = evidencePages(ev).filter((p) => inside(p.pageNumber));
  const segments = ev.segments.filter((s) => inside(segmentPage(s)));
  const grounding = ev.grounding
    ? { ...ev.grounding, pages: ev.grounding.pages.filter((p) => inside(p.page_number)) }
    : undefined;
  return { segments, pages, ...(grounding ? { grounding } : {}) };
}

/** How far a page sits from the nearer edge of a window (0 on the first or last page). */
export const edgeDistance = (w: Pick<SplitWindow, 'first' | 'last'>, page: number) =>
  Math.min(page - w.first, w.last - page);
