// Element → markdown fragment. The fragment is also the element's `markdown_anchor`, so the
// page markdown is exactly the fragments joined by blank lines (an anchor is always findable).
import type { LayoutElement, TableModel } from '../types';

const LIST_MARKER = /^\s*([•◦▪▫●○■□►▶➢➤✓✔❖·∙*–-])\s*/;
const NUMBERED = /^\s*(\(?(\d{1,3}|[a-zA-Z]|[ivxIVX]{1,4})[.)])\s+/;

export function elementMarkdown(el: LayoutElement, imagePath?: string): string {
  switch (el.type) {
    case 'page_header':
    case 'page_footer':
      return '';
    case 'title':
      return `# ${oneLine(el.text)}`;
    case 'heading':
      return `${'#'.repeat(Math.min(6, Math.max(2, el.level ?? 2)))} ${oneLine(el.text)}`;
    case 'list_item': {
      const t = oneLine(el.text);
      const num = NUMBERED.exec(t);
      if (num && /^\d/.test(num[2]!)) return `${num[2]}. ${t.slice(num[0].length)}`;
      if (num) return `- ${t}`;
      return `- ${t.replace(LIST_MARKER, '')}`;
    }
    case 'code':
      return '```\n' + el.text.replace(/```/g, '``\u200b`') + '\n```';
    case 'table':
      return el.table ? tableMarkdown(el.table) : escapeText(el.text);
    case 'figure':
      return imagePath ? `![${el.type}](${imagePath})` : '<!-- image -->';
    default:
      return escapeText(oneLine(el.text));
  }
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** Escapes characters that would turn plain text into markdown structure at line start. */
function escapeText(s: string): string {
  return s.replace(/^(#{1,6}\s)/, '\\$1').replace(/^(\s*[-+*]\s)/, '\\$1');
}

const cellText = (s: string) => oneLine(s).replace(/\|/g, '\\|');

/**
 * Pipe table. A spanning cell's text is written once, in its first row and column; the other
 * slots it covers stay empty (repeating it would write the text several times over).
 */
export function tableMarkdown(t: TableModel): string {
  const grid: string[][] = Array.from({ length: t.rows }, () => Array.from({ length: t.cols }, () => ''));
  for (const c of t.cells) if (c.row < t.rows && c.col < t.cols) grid[c.row]![c.col] = cellText(c.text);
  // GFM allows exactly one header line; further header rows become the first body rows.
  const lines: string[] = [];
  grid.forEach((row, i) => {
    lines.push(`| ${row.join(' | ')} |`);
    if (i === 0) lines.push(`|${row.map(() => '---').join('|')}|`);
  });
  return lines.join('\n');
}
