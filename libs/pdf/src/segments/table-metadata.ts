// Table facts that help search and extraction: header texts, row labels (first column of body
// rows) and footnote markers found in cells ("a", "*", "†", "(1)" trailing a value).
import type { TableCell, TableMetadata } from '@docfleet/contracts';

const NOTE_REF = /(?:^|[\s\d.%)])([*†‡§¶]+|\([a-z0-9]\)|[¹²³⁴⁵⁶⁷⁸⁹⁰ᵃᵇᶜᵈ]+)$/u;

export function tableMetadata(cells: TableCell[]): TableMetadata {
  const headers = cells
    .filter((c) => c.isHeader && c.text.trim())
    .sort((a, b) => a.row - b.row || a.col - b.col)
    .map((c) => c.text.trim());
  const firstBody = Math.min(...cells.filter((c) => !c.isHeader).map((c) => c.row));
  const rowLabels = cells
    .filter((c) => !c.isHeader && c.col === 0 && c.row >= firstBody && c.text.trim())
    .sort((a, b) => a.row - b.row)
    .map((c) => c.text.trim());
  const noteRefs = new Set<string>();
  for (const c of cells) {
    const m = NOTE_REF.exec(c.text.trim());
    if (m) noteRefs.add(m[1]!);
  }
  return { isTable: true, headers: [...new Set(headers)], rowLabels, noteRefs: [...noteRefs] };
}
