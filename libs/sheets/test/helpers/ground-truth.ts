import { readFileSync } from 'node:fs';

/** Pipe tables of a markdown file, each as rows of trimmed cells (separator lines dropped). */
export function markdownTables(path: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of readFileSync(path, 'utf8').split(/\r?\n/)) {
    if (!line.trim().startsWith('|')) {
      current = null;
      continue;
    }
    if (/^\s*\|[\s|:-]+\|\s*$/.test(line) && line.includes('-')) continue;
    const cells = line
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((c) => c.trim());
    if (!current) tables.push((current = []));
    current.push(cells);
  }
  return tables;
}

/** Rows of the first <table> of an HTML snippet. */
export function htmlTableRows(path: string): string[][] {
  const html = readFileSync(path, 'utf8');
  return [...html.matchAll(/<tr>(.*?)<\/tr>/gs)].map((m) =>
    [...m[1]!.matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/gs)].map((c) => c[1]!.trim()),
  );
}
