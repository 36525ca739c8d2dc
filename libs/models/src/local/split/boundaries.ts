// Scores "a new document starts on this page" from the page features. Positive evidence: page
// numbering restarting, the previous page being the last of its count, a title line naming a
// document kind, a different document type or reference number, a topic change, a page-size
// change. Negative evidence: numbering that continues, shared running headers/footers, the same
// reference number, a sentence running over the page break, topic continuity. Weights were set
// by reasoning about each signal's reliability, then checked on the corpus (README, measured).
import type { PageFeatures } from './page-features';

export interface BoundaryScore {
  pageNumber: number;
  score: number;
  reasons: string[];
}

const TITLE_WORDS =
  /\b(invoice|factuur|facture|rechnung|bill|agreement|contract|nda|non-?disclosure|confidentiality|statement|report|exhibit|front cover|memorandum|letter|receipt|certificate|proposal|purchase order|minutes)\b/i;
const FAMILY: Record<string, string> = {
  contract: 'contract',
  contract_nda: 'contract',
  invoice: 'invoice',
  receipt: 'invoice',
};
const family = (t?: string) => (t ? (FAMILY[t] ?? t) : undefined);

export const BOUNDARY_THRESHOLD = 2;

/** A title is short and set like one: mostly capitals, or a few words without closing punctuation. */
function titleLike(line: string): boolean {
  const t = line.trim();
  if (t.length > 120 || /^(figure|fig\.|table|tab\.|listing|example)\s*\d/i.test(t)) return false;
  const letters = t.replace(/[^A-Za-z]/g, '');
  const upper = letters.replace(/[^A-Z]/g, '').length;
  return upper > 0.6 * letters.length || (t.split(/\s+/).length <= 10 && !/[.,;:]$/.test(t));
}

export function tfidf(pages: PageFeatures[]): Array<Map<string, number>> {
  const df = new Map<string, number>();
  pages.forEach((p) => p.terms.forEach((_, w) => df.set(w, (df.get(w) ?? 0) + 1)));
  const n = pages.length;
  return pages.map((p) => {
    const v = new Map<string, number>();
    p.terms.forEach((c, w) => v.set(w, (1 + Math.log(c)) * Math.log(1 + n / (df.get(w) ?? 1))));
    return v;
  });
}

export function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, k) => {
    na += x * x;
    const y = b.get(k);
    if (y) dot += x * y;
  });
  b.forEach((y) => {
    nb += y * y;
  });
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

export function addInto(acc: Map<string, number>, v: Map<string, number>): void {
  v.forEach((x, k) => acc.set(k, (acc.get(k) ?? 0) + x));
}

/** Score for page `cur` starting a new document, given the previous page and the open record's profile. */
export function boundaryScore(prev: PageFeatures, cur: PageFeatures, similarity: number): BoundaryScore {
  const reasons: string[] = [];
  let score = 0;
  const add = (w: number, why: string) => {
    score += w;
    reasons.push(why);
  };
  if (cur.empty) return { pageNumber: cur.pageNumber, score: -3, reasons: ['blank page continues the document'] };
  const pm = prev.marker;
  const cm = cur.marker;
  if (cm && cm.n === 1 && !cm.bare) add(4, `page numbering restarts (${cm.total ? `1 of ${cm.total}` : 'page 1'})`);
  else if (cm && cm.n === 1 && cm.bare) add(1.5, 'page number 1');
  if (cm && cm.n > 1) {
    if (pm && pm.n === cm.n - 1 && (pm.total === cm.total || pm.bare === cm.bare))
      add(cm.bare ? -2.5 : -4, `page numbering continues (${pm.n} → ${cm.n})`);
    else if (!cm.bare) add(-3, `page ${cm.n}${cm.total ? ` of ${cm.total}` : ''} continues a document`);
    else add(-1, `page number ${cm.n}`);
  }
  if (pm && pm.total && pm.n === pm.total) add(2, `previous page was the last (${pm.n} of ${pm.total})`);
  if (/\bback cover\b/i.test(prev.lines.slice(0, 3).join(' '))) add(2, 'previous page is a back cover');
  const runningHead = cur.headKeys.some((k) => prev.headKeys.includes(k));
  const runningFoot = cur.footKeys.some((k) => prev.footKeys.includes(k) && !/^#$/.test(k));
  if (runningHead || runningFoot) add(-2, `shared running ${runningHead ? 'header' : 'footer'}`);
  const freshTitle = cur.lines
    .slice(0, 4)
    .find((l) => titleLike(l) && TITLE_WORDS.test(l) && !prev.lines.slice(0, 4).includes(l));
  if (freshTitle && !runningHead) add(1.5, `title line "${freshTitle.slice(0, 60)}"`);
  // Letters open with a salutation; nothing in the middle of a document does.
  if (
    cur.lines
      .slice(0, 5)
      .some((l) =>
        /^(dear\b|ladies and gentlemen|to whom it may concern|sehr geehrte|madame, monsieur|geachte)/i.test(l),
      )
  )
    add(1.5, 'salutation opens the page');
  const pt = family(prev.docType);
  const ct = family(cur.docType);
  if (pt && ct && pt !== ct) add(2, `document type changes (${prev.docType} → ${cur.docType})`);
  if (prev.reference && cur.reference) {
    if (prev.reference === cur.reference) add(-3, `same reference number ${cur.reference}`);
    else add(3, `reference number changes (${prev.reference} → ${cur.reference})`);
  }
  const lastLine = prev.lines.filter((l) => !/^\s*\d{1,3}\s*$/.test(l) && !prev.footKeys.includes(l)).at(-1) ?? '';
  const firstLine = cur.lines[0] ?? '';
  if (/[a-z,;]$/.test(lastLine) && /^[a-z]/.test(firstLine)) add(-3, 'sentence runs over the page break');
  if (similarity < 0.08) add(1.5, `topic changes (similarity ${similarity.toFixed(2)})`);
  else if (similarity > 0.25) add(-1.5, `topic continues (similarity ${similarity.toFixed(2)})`);
  if (
    prev.width &&
    cur.width &&
    prev.height &&
    cur.height &&
    (Math.abs(prev.width - cur.width) > 0.05 * prev.width || Math.abs(prev.height - cur.height) > 0.05 * prev.height)
  ) {
    add(1, 'page size changes');
  }
  return { pageNumber: cur.pageNumber, score, reasons };
}
