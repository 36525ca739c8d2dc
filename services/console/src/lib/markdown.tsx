import { Fragment, type ReactNode } from 'react';

/**
 * A small markdown renderer that builds React elements and never HTML: document text is always
 * text (a `<script>` in a PDF shows as the characters `<script>`). It covers what the parsers
 * write: headings, paragraphs, lists, pipe tables, code fences, images, emphasis and code spans.
 * Images are handed to `image` so the caller can load them with the API's credentials.
 */
export function Markdown({ text, image }: { text: string; image?: (src: string, alt: string) => ReactNode }) {
  return <>{blocks(text, image)}</>;
}

function blocks(text: string, image?: (src: string, alt: string) => ReactNode): ReactNode[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: ReactNode[] = [];
  let i = 0;
  let key = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (!line.trim()) {
      i++;
      continue;
    }
    if (line.startsWith('```')) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
      i++;
      out.push(
        <pre key={key++}>
          <code>{body.join('\n')}</code>
        </pre>,
      );
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      const level = Math.min(6, h[1]!.length + 1) as 2 | 3 | 4 | 5 | 6; // the page's own h1 is the screen title
      const Tag = `h${level}` as const;
      out.push(<Tag key={key++}>{inline(h[2]!, image)}</Tag>);
      i++;
      continue;
    }
    if (/^\s*\|.*\|\s*$/.test(line)) {
      const rows: string[][] = [];
      for (; i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i]!); i++) {
        if (/^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$/.test(lines[i]!)) continue;
        rows.push(splitRow(lines[i]!));
      }
      const [head, ...body] = rows;
      out.push(
        <table key={key++} className="md-table">
          {head && (
            <thead>
              <tr>
                {head.map((c, k) => (
                  <th key={k}>{inline(c, image)}</th>
                ))}
              </tr>
            </thead>
          )}
          <tbody>
            {body.map((r, n) => (
              <tr key={n}>
                {r.map((c, k) => (
                  <td key={k}>{inline(c, image)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>,
      );
      continue;
    }
    if (/^\s*([-*+]|\d{1,3}[.)])\s+/.test(line)) {
      const ordered = /^\s*\d/.test(line);
      const items: string[] = [];
      for (; i < lines.length && /^\s*([-*+]|\d{1,3}[.)])\s+/.test(lines[i]!); i++)
        items.push(lines[i]!.replace(/^\s*([-*+]|\d{1,3}[.)])\s+/, ''));
      const List = ordered ? 'ol' : 'ul';
      out.push(
        <List key={key++}>
          {items.map((t, k) => (
            <li key={k}>{inline(t, image)}</li>
          ))}
        </List>,
      );
      continue;
    }
    const para: string[] = [];
    for (; i < lines.length && lines[i]!.trim() && !/^(#{1,6}\s|```|\s*\|)/.test(lines[i]!); i++) para.push(lines[i]!);
    if (para.length === 0) {
      para.push(line);
      i++;
    }
    out.push(<p key={key++}>{inline(para.join(' '), image)}</p>);
  }
  return out;
}

function splitRow(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const cells: string[] = [];
  let cur = '';
  for (let k = 0; k < inner.length; k++) {
    const ch = inner[k]!;
    if (ch === '\\' && inner[k + 1] === '|') {
      cur += '|';
      k++;
      continue;
    }
    if (ch === '|') {
      cells.push(cur.trim());
      cur = '';
      continue;
    }
    cur += ch;
  }
  cells.push(cur.trim());
  return cells;
}

const INLINE = /!\[([^\]]*)\]\(([^)\s]+)\)|\*\*([^*]+)\*\*|`([^`]+)`|<!--\s*image\s*-->|\\([\\`*_{}[\]()#+\-.!|])/g;

function inline(text: string, image?: (src: string, alt: string) => ReactNode): ReactNode {
  const parts: ReactNode[] = [];
  let last = 0;
  let k = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index! > last) parts.push(text.slice(last, m.index));
    if (m[2] !== undefined)
      parts.push(<Fragment key={k++}>{image ? image(m[2], m[1] ?? '') : `[${m[1] || 'image'}]`}</Fragment>);
    else if (m[3] !== undefined) parts.push(<strong key={k++}>{m[3]}</strong>);
    else if (m[4] !== undefined) parts.push(<code key={k++}>{m[4]}</code>);
    else if (m[5] !== undefined) parts.push(m[5]);
    else
      parts.push(
        <span key={k++} className="muted">
          [image]
        </span>,
      );
    last = m.index! + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}
