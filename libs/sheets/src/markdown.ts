// Markdown rendering: pipe tables (header row first, cells escaped) and text paragraphs.
import type { SheetTable, SheetText } from './types';

const NEEDS_ESCAPE = /[\\|\r\n]/;

export function escapeCell(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return s;
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

export function markdownRow(cells: string[]): string {
  return `| ${cells.map((c) => escapeCell(c) || ' ').join(' | ')} |`;
}

export function markdownHeader(headers: string[]): string {
  return `${markdownRow(headers)}\n|${headers.map(() => ' --- ').join('|')}|`;
}

/** A pipe table of the header and the given body rows (all rows when omitted). */
export function tableMarkdown(table: SheetTable, rows: string[][] = table.rows): string {
  const lines = [markdownHeader(table.headers)];
  for (const row of rows) lines.push(markdownRow(row));
  return lines.join('\n');
}

export function textMarkdown(text: SheetText): string {
  // A text starting like markdown syntax ('# ', '- ', '1. ', '> ') would change meaning: escape it.
  return text.text
    .split('\n')
    .map((line) => line.replace(/^(\s*)([#>*+-]|\d+\.)(\s)/, '$1\\$2$3').replace(/\|/g, '\\|'))
    .join('  \n');
}

export function anchor(id: string): string {
  return `<a id="${id}"></a>`;
}
