import type { Values } from './run';
import { positiveInt, usage, type CommandContext } from './context';
import { oneLine, table } from './table';

/** `search KB_ID "query" [--limit N] [--table-only]`: hits best first as a table (file, page, score, text). */
export async function searchCommand({ client, io }: CommandContext, args: string[], values: Values): Promise<void> {
  if (args.length < 2) usage('search needs KB_ID and a query (quote the query: docfleet search KB_ID "total due")');
  const [kbId, ...words] = args;
  const query = words.join(' ');
  const r = await client.search(kbId, {
    query,
    limit: positiveInt(values.limit as string | undefined, 'limit'),
    table_only: values['table-only'] ? true : undefined,
  });
  if (io.json) return io.result(r);
  if (!r.hits.length)
    return io.out(
      `no hits for ${JSON.stringify(query)} (only parsed files are searchable; a parse that just finished may take a few seconds to appear)`,
    );
  await io.out(
    table(
      ['#', 'SCORE', 'FILE', 'PAGE', 'SEGMENT', 'TEXT'],
      r.hits.map((h, i) => [
        i + 1,
        h.score.toFixed(3),
        h.docName,
        (h.coordinates as { pageNumber?: number }).pageNumber ??
          (h.coordinates as { sheetName?: string }).sheetName ??
          '',
        h.segmentId,
        oneLine(h.markdown),
      ]),
    ),
  );
  return io.out(`${r.hits.length} hits`);
}
