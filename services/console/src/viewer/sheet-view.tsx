import { useState } from 'react';
import type { ArtifactManifest, GroundingDocument } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { useAsync } from '../lib/use-async';
import { layerOf } from './layers';

interface WorkbookSheet {
  index: number;
  name: string;
  rowCount: number;
  colCount: number;
  rows: Array<{ r: number; cells: Array<{ c: number; a1: string; value: unknown }> }>;
}
interface Workbook {
  sheets: WorkbookSheet[];
}

const MAX_GRID_CELLS = 20_000;
const pct = (v: number) => `${(v * 100).toFixed(4)}%`;

/** A spreadsheet: each sheet's grid with its segments drawn over their A1 ranges. */
export function SheetView({
  grounding,
  manifest,
  selectedId,
  onSelect,
}: {
  grounding: GroundingDocument;
  manifest: ArtifactManifest;
  selectedId: string | undefined;
  onSelect: (id: string) => void;
}) {
  const { client } = useConsole();
  const [sheetNo, setSheetNo] = useState(
    () => grounding.pages.find((p) => p.elements.some((e) => e.id === selectedId))?.page_number ?? 1,
  );
  const wb = useAsync(
    async (signal) =>
      manifest.links.workbook_json
        ? ((await client.artifacts.get(manifest.id, 'workbook_json', { signal })) as Workbook)
        : undefined,
    [client, manifest.id],
  );
  const page = grounding.pages.find((p) => p.page_number === sheetNo) ?? grounding.pages[0];
  const sheet = wb.data?.sheets.find((s) => s.index === (page?.page_number ?? 1) - 1);
  const rows = page?.height ?? 0;
  const cols = page?.width ?? 0;
  const r0 = sheet ? firstRow(sheet) : 1;
  const c0 = sheet ? firstCol(sheet) : 1;
  const names = new Map(
    grounding.pages.map((p) => [
      p.page_number,
      p.elements.find((e) => e.sheet)?.sheet?.sheetName ?? `Sheet ${p.page_number}`,
    ]),
  );
  return (
    <div className="sheet-view">
      <ErrorBanner error={wb.error} />
      <div className="tabs" role="tablist" aria-label="Sheets">
        {grounding.pages.map((p) => (
          <button
            key={p.page_number}
            type="button"
            role="tab"
            aria-selected={p.page_number === page?.page_number}
            onClick={() => setSheetNo(p.page_number)}
          >
            {names.get(p.page_number)}
          </button>
        ))}
      </div>
      {page && sheet && rows * cols <= MAX_GRID_CELLS && (
        <div className="sheet-grid-wrap">
          <div
            className="sheet-grid"
            style={{
              gridTemplateColumns: `repeat(${cols}, minmax(4rem, 1fr))`,
              gridTemplateRows: `repeat(${rows}, 1.6rem)`,
            }}
          >
            {sheet.rows.flatMap((r) =>
              r.cells.map((c) => (
                <div
                  key={c.a1}
                  className="sheet-cell"
                  title={c.a1}
                  style={{ gridRow: r.r - r0 + 1, gridColumn: c.c - c0 + 1 }}
                >
                  {c.value === null ? '' : String(c.value)}
                </div>
              )),
            )}
            <div className="page-overlay" data-page={page.page_number}>
              {page.elements.map((el) => (
                <div
                  key={el.id}
                  className={`box${el.id === selectedId ? ' selected' : ''}`}
                  data-element-id={el.id}
                  data-type={el.type}
                  role="button"
                  tabIndex={0}
                  aria-label={`${el.label} ${el.sheet?.rangeA1 ?? ''}`}
                  onClick={() => onSelect(el.id)}
                  style={{
                    left: pct(el.bbox.x1),
                    top: pct(el.bbox.y1),
                    width: pct(el.bbox.x2 - el.bbox.x1),
                    height: pct(el.bbox.y2 - el.bbox.y1),
                    borderColor: layerOf(el).color,
                  }}
                />
              ))}
            </div>
          </div>
        </div>
      )}
      {page && (
        <table className="segments" aria-label="Segments of this sheet">
          <thead>
            <tr>
              <th>Range</th>
              <th>Type</th>
              <th>Content</th>
            </tr>
          </thead>
          <tbody>
            {page.elements.map((el) => (
              <tr
                key={el.id}
                className={el.id === selectedId ? 'selected' : ''}
                data-md-element-id={el.id}
                onClick={() => onSelect(el.id)}
              >
                <td>
                  <code>{el.sheet?.rangeA1 ?? ''}</code>
                </td>
                <td>{el.label}</td>
                <td className="clip">{el.content.slice(0, 300)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

const firstRow = (s: WorkbookSheet) => s.rows[0]?.r ?? 1;
function firstCol(s: WorkbookSheet): number {
  let min = Number.MAX_SAFE_INTEGER;
  for (const r of s.rows) for (const c of r.cells) if (c.c < min) min = c.c;
  return min === Number.MAX_SAFE_INTEGER ? 1 : min;
}
