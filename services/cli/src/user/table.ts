// Plain-text tables for people: columns padded to their widest cell, the last column cut to the
// terminal width (80 when stdout is not a terminal) so a long snippet never wraps the layout.

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function truncate(text: string, max: number): string {
  if (max <= 1) return text.slice(0, Math.max(0, max));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Keeps the end of a long text (a path's file name matters more than its first folders). */
export function truncateStart(text: string, max: number): string {
  if (max <= 1) return text.slice(Math.max(0, text.length - Math.max(0, max)));
  return text.length > max ? `…${text.slice(text.length - (max - 1))}` : text;
}

/** `keepEnd`: cut the last column at its beginning instead of its end (paths). */
export function table(
  headers: string[],
  rows: Array<Array<string | number | null | undefined>>,
  width = process.stdout.columns || 100,
  opts: { keepEnd?: boolean } = {},
): string {
  const cells = rows.map((r) => r.map((c) => (c === null || c === undefined ? '' : oneLine(String(c)))));
  const widths = headers.map((h, i) =>
    Math.max(h.length, ...cells.map((r) => (i < headers.length - 1 ? r[i].length : 0))),
  );
  const lead = widths.slice(0, -1).reduce((a, w) => a + w + 2, 0);
  const lastWidth = Math.max(20, width - lead);
  const line = (r: string[]) =>
    r
      .map((c, i) =>
        i === r.length - 1 ? (opts.keepEnd ? truncateStart : truncate)(c, lastWidth) : c.padEnd(widths[i]),
      )
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n');
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
