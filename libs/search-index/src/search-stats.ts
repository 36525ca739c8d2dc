// BM25 statistics (issue 22): per knowledge base, the document frequency of every term
// (search_terms) and the total length of its segments (evidence_index_state.total_length), kept in
// the transaction that inserts or deletes the segments. The postings themselves are written with the
// segments (insertRows) and go with them (ON DELETE CASCADE); this file only keeps the counts right.
import { Prisma, type Tx } from '@docfleet/db';

/** What a set of segments contributed to the statistics (subtracted when they go). */
export interface TermCounts {
  terms: string[];
  counts: number[];
  /** Sum of the segments' search_length. */
  length: number;
}

export const NO_TERMS: TermCounts = { terms: [], counts: [], length: 0 };

/** The term counts of the segments matching `where` (over evidence_index_segments s), read before they are deleted. */
export async function termCountsOf(tx: Tx, where: Prisma.Sql): Promise<TermCounts> {
  const [row] = await tx.$queryRaw<{ terms: string[] | null; counts: number[] | null; length: number | null }[]>`
    SELECT array_agg(term ORDER BY term) AS terms, array_agg(n ORDER BY term) AS counts,
      (SELECT sum(s.search_length) FROM evidence_index_segments s WHERE ${where})::float8 AS length
    FROM (SELECT p.term, count(*)::int AS n FROM evidence_index_segments s
      JOIN search_postings p ON p.segment_row_id = s.id WHERE ${where} GROUP BY p.term) c`;
  return { terms: row?.terms ?? [], counts: row?.counts ?? [], length: row?.length ?? 0 };
}

/**
 * Applies (added − removed) to the knowledge base's document frequencies in one statement, in term
 * order: concurrent index jobs of one knowledge base lock the rows they share in the same order,
 * so they queue behind each other instead of deadlocking. Terms whose frequency reaches 0 are
 * deleted. Returns the length delta for evidence_index_state.
 */
export async function applyTermDelta(tx: Tx, kbId: string, added: TermCounts, removed: TermCounts): Promise<number> {
  if (!added.terms.length && !removed.terms.length) return added.length - removed.length;
  await tx.$executeRaw`
    WITH d AS (
      SELECT term, sum(n)::int AS n FROM (
        SELECT * FROM unnest(${added.terms}::text[], ${added.counts}::int[]) AS a(term, n)
        UNION ALL SELECT term, -n FROM unnest(${removed.terms}::text[], ${removed.counts}::int[]) AS r(term, n)
      ) x GROUP BY term HAVING sum(n) <> 0 ORDER BY term
    )
    INSERT INTO search_terms AS t (knowledge_base_id, term, df)
    SELECT ${kbId}::uuid, d.term, d.n FROM d ORDER BY d.term
    ON CONFLICT (knowledge_base_id, term) DO UPDATE SET df = t.df + excluded.df`;
  await tx.$executeRaw`
    DELETE FROM search_terms WHERE knowledge_base_id = ${kbId}::uuid AND term = ANY(${removed.terms}::text[]) AND df <= 0`;
  return added.length - removed.length;
}

/** Recomputes a knowledge base's statistics from its postings (after rows went without this worker seeing them). */
export async function recountTerms(tx: Tx, kbId: string): Promise<void> {
  await tx.$executeRaw`DELETE FROM search_terms WHERE knowledge_base_id = ${kbId}::uuid`;
  await tx.$executeRaw`
    INSERT INTO search_terms (knowledge_base_id, term, df)
    SELECT ${kbId}::uuid, term, count(*)::int FROM search_postings WHERE knowledge_base_id = ${kbId}::uuid GROUP BY term`;
}
