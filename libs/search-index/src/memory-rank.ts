// The last part of a search scored in memory (issue 22.5), done in the gateway instead of in a
// statement per search: what search-sql.ts's rankedSql does with a candidate set (visibility, the
// filters, the table boost, rounding to six decimals, the order, grouping by file, the limit) and the
// hits' JSON, from a copy of the knowledge base (memory-search.ts), the live state of the candidates'
// files (candidateStateSql) and each segment's unchanging part of its hit (hitFragmentsSql).

/**
 * `round(v::numeric, 6)::float8` as PostgreSQL 15 computes it: float8 to numeric keeps 15 significant
 * digits (`%.15g`, ties to even on the exact binary value), numeric rounds half away from zero, and
 * the decimal goes back to the nearest double.
 */
export function pgRound6(v: number): number {
  if (v === 0 || !Number.isFinite(v)) return v;
  const neg = v < 0;
  const a = Math.abs(v);
  // [digits (an integer under 10^15), exponent]: a ≈ digits × 10^exp, to 15 significant digits.
  const [digits, exp] = Number.isInteger(a * 2 ** 40) ? exact15(a) : from15(a.toPrecision(15));
  let out: number;
  if (exp >= -6) {
    out = exp >= 0 ? digits * 10 ** exp : digits / 10 ** -exp;
  } else {
    const k = -6 - exp;
    if (k > 15) {
      out = 0;
    } else {
      const p = 10 ** k;
      let q = Math.floor(digits / p);
      let rem = digits - q * p;
      if (rem < 0) {
        q -= 1;
        rem += p;
      } else if (rem >= p) {
        q += 1;
        rem -= p;
      }
      if (2 * rem >= p) q += 1;
      out = q / 1e6;
    }
  }
  return neg ? -out : out;
}

/** toPrecision(15)'s text as [15-digit integer, exponent] (its digits are %.15g's unless the value is a tie). */
function from15(s: string): [number, number] {
  const e = s.indexOf('e');
  const mant = e < 0 ? s : s.slice(0, e);
  let exp = e < 0 ? 0 : Number(s.slice(e + 1));
  const dot = mant.indexOf('.');
  if (dot >= 0) exp -= mant.length - dot - 1;
  return [Number(mant.replace('.', '')), exp];
}

/**
 * A value with at most 40 fractional bits (the only ones whose exact decimal expansion can end at the
 * 16th significant digit, a tie that JavaScript rounds up and C's printf to even): its exact decimal
 * expansion rounded to 15 significant digits, ties to even.
 */
function exact15(a: number): [number, number] {
  // a = m / 2^40 = m × 5^40 / 10^40.
  let n = BigInt(a * 2 ** 40) * 5n ** 40n;
  let exp = -40;
  const len = n.toString().length;
  if (len > 15) {
    const p = 10n ** BigInt(len - 15);
    let q = n / p;
    const rem = n - q * p;
    if (2n * rem > p || (2n * rem === p && q % 2n === 1n)) q += 1n;
    n = q;
    exp += len - 15;
  }
  return [Number(n), exp];
}

/** A candidate that passed visibility and the filters: segment number, file, position, rounded score. */
export interface RankedHit {
  seg: number;
  fileId: string;
  ordinal: number;
  score: number;
}

const byRank = (a: RankedHit, b: RankedHit) =>
  b.score - a.score || (a.fileId < b.fileId ? -1 : a.fileId > b.fileId ? 1 : 0) || a.ordinal - b.ordinal;

/**
 * rankedSql's order over visible candidates: (rounded score desc, file, position), at most `limit`;
 * with `groupByFile` each file's best one (score desc, position) first.
 */
export function rankHits(hits: RankedHit[], limit: number, groupByFile: boolean): RankedHit[] {
  let xs = hits;
  if (groupByFile) {
    const best = new Map<string, RankedHit>();
    for (const h of hits) {
      const b = best.get(h.fileId);
      if (!b || h.score > b.score || (h.score === b.score && h.ordinal < b.ordinal)) best.set(h.fileId, h);
    }
    xs = [...best.values()];
  }
  return xs.sort(byRank).slice(0, limit);
}

/** A segment's hit without `docName` and `score`: three JSON objects' texts (hitFragmentsSql). */
export type HitFragment = [head: string, body: string, tail: string];

/** One hit's JSON: the segment's fragment with the file's current name and the score put in. */
export function hitJson(f: HitFragment, docName: string, score: number): string {
  return `${f[0].slice(0, -1)}, "docName" : ${JSON.stringify(docName)}, ${f[1].slice(1, -1)}, "score" : ${JSON.stringify(score)}, ${f[2].slice(1)}`;
}
