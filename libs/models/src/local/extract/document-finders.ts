// Finders for values that documents state in sentences rather than next to a label: contract
// parties, effective date, governing law, term; plus document-level fallbacks for invoices
// (currency, issuer, first date). Each returns candidates with a verbatim quote and a score.
import { currenciesIn, currencyIndex } from '../text/amounts';
import { findDates } from '../text/dates';
import { findDurations, findGoverningLaw, findOrganisations, orgKey } from '../text/entities';
import type { SegLine } from '../text/lines';
import { lineCandidate as cand, type Candidate } from './labelled-values';

/** Effective date: a date introduced by "effective", "dated as of", "entered into"…; else the signature date, else the first date. */
export function effectiveDateCandidates(lines: SegLine[]): Candidate[] {
  const out: Candidate[] = [];
  const total = lines.length;
  lines.forEach((line, i) => {
    for (const d of findDates(line.text)) {
      const before = line.text.slice(Math.max(0, d.start - 80), d.start).toLowerCase();
      let score = 0.3;
      if (
        /effective(\s+date)?[^.]{0,40}$|dated\s+(as\s+of\s+)?[^.]{0,10}$|as of\s*$|entered into[^.]{0,40}$|made[^.]{0,30}\bon\s*$|commenc[^.]{0,40}$/.test(
          before,
        )
      )
        score = 0.9;
      else if (/\bdated?\s*:?\s*$/.test(before))
        score = 0.7; // signature blocks: "Date: 11/25/2014"
      else if (i < Math.max(8, total * 0.1)) score = 0.55; // letter agreements open with their date
      out.push(cand(line, i, d.iso, d.start, d.end, score, 'effective date'));
    }
  });
  // The same date stated again (running headers, signature blocks) makes it more likely.
  const counts = new Map<string, number>();
  out.forEach((c) => counts.set(String(c.value), (counts.get(String(c.value)) ?? 0) + 1));
  return out.map((c) => ({
    ...c,
    score: Math.min(0.95, c.score + 0.03 * Math.min(5, (counts.get(String(c.value)) ?? 1) - 1)),
  }));
}

export function jurisdictionCandidates(lines: SegLine[]): Candidate[] {
  const out: Candidate[] = [];
  lines.forEach((line, i) => {
    for (const h of findGoverningLaw(line.text)) {
      const around = line.text.slice(Math.max(0, h.start - 160), h.end + 40).toLowerCase();
      const score = /govern|constru|interpret/.test(around) ? 0.9 : /jurisdiction|courts?/.test(around) ? 0.7 : 0.5;
      out.push(cand(line, i, h.value, h.start, h.end, score, 'governing law'));
    }
  });
  return out;
}

export function termCandidates(lines: SegLine[]): Candidate[] {
  const out: Candidate[] = [];
  lines.forEach((line, i) => {
    for (const d of findDurations(line.text)) {
      const before = line.text.slice(Math.max(0, d.start - 70), d.start).toLowerCase();
      const after = line.text.slice(d.end, d.end + 60).toLowerCase();
      let score = 0.2;
      if (/\bterm\b[^.]{0,50}$/.test(before)) score = 0.9;
      else if (
        /expir[^.]{0,50}$|terminat[^.]{0,50}$/.test(before) ||
        /^\s*(after|from|following) the (date|effective)/.test(after)
      )
        score = 0.75;
      else if (/period of\s*$/.test(before)) score = 0.5;
      out.push(cand(line, i, d.value, d.start, d.end, score, 'term'));
    }
  });
  return out;
}

interface OrgStat {
  name: string;
  key: string;
  count: number;
  first: number;
  between: boolean;
  alias: boolean;
  notice: boolean;
  hits: Array<{ line: SegLine; i: number; start: number; end: number }>;
}

function orgStats(lines: SegLine[]): OrgStat[] {
  const stats = new Map<string, OrgStat>();
  lines.forEach((line, i) => {
    for (const o of findOrganisations(line.text)) {
      const key = orgKey(o.name);
      if (!key || key.length < 2) continue;
      const s = stats.get(key) ?? {
        name: o.name,
        key,
        count: 0,
        first: i,
        between: false,
        alias: false,
        notice: false,
        hits: [],
      };
      // Prefer the mixed-case spelling over an all-caps signature block.
      if (s.name === s.name.toUpperCase() && o.name !== o.name.toUpperCase()) s.name = o.name;
      s.count++;
      s.hits.push({ line, i, start: o.start, end: o.end });
      const before = line.text.slice(Math.max(0, o.start - 200), o.start).toLowerCase();
      const after = line.text.slice(o.end, o.end + 90);
      if (
        /\bbetween\b/.test(before) &&
        !/\.\s[A-Z]/.test(
          line.text.slice(Math.max(0, o.start - 200), o.start).replace(/\b(Inc|Ltd|Co|Corp|N\.A|S\.A|B\.V)\./g, ''),
        )
      )
        s.between = true;
      if (/^[^.]{0,80}\((?:the\s+|each\s+)?[“"']/.test(after)) s.alias = true;
      if (/copy to|attention|c\/o/.test(before.slice(-60)) || /\bLLP\b/.test(o.name)) s.notice = true;
      stats.set(key, s);
    }
  });
  // Count mentions without the legal form too ("AOL" for "AOL Inc.").
  const all = lines.map((l) => l.text.toLowerCase()).join('\n');
  for (const s of stats.values()) {
    const bare = s.key.replace(/[^a-z0-9]+/g, ' ').trim();
    if (bare.length >= 3) s.count = Math.max(s.count, all.replace(/[^a-z0-9]+/g, ' ').split(` ${bare} `).length - 1);
  }
  return [...stats.values()];
}

const orgScore = (s: OrgStat) =>
  (s.between ? 3 : 0) + (s.alias ? 1.5 : 0) + Math.log2(1 + s.count) - (s.notice ? 3 : 0) - s.first / 400;

/** Contract parties: organisations named in the "between … and …" clause, defined with an alias, or named often. */
export function partyCandidates(lines: SegLine[], max = 2): Candidate[] {
  const ranked = orgStats(lines).sort((a, b) => orgScore(b) - orgScore(a));
  // Ranked to choose, then reported in the order the document names them.
  const picked = ranked
    .filter((s) => orgScore(s) > 1)
    .slice(0, max)
    .sort((a, b) => a.first - b.first || a.hits[0]!.start - b.hits[0]!.start);
  return picked.map((s) => {
    const h = s.hits.find((x) => x.line.text.slice(x.start, x.end) === s.name) ?? s.hits[0]!;
    return cand(h.line, h.i, s.name, h.start, h.end, Math.min(0.9, 0.5 + orgScore(s) / 10), 'party');
  });
}

/** Issuer fallback: the organisation printed earliest and most often (letterhead, footer). */
export function issuerCandidates(lines: SegLine[]): Candidate[] {
  const ranked = orgStats(lines).sort(
    (a, b) => Math.log2(1 + b.count) - b.first / 40 - (Math.log2(1 + a.count) - a.first / 40),
  );
  return ranked.slice(0, 1).map((s) => {
    const h = s.hits[0]!;
    return cand(h.line, h.i, s.name, h.start, h.end, 0.55, 'organisation');
  });
}

/** The document's currency: the code or symbol printed most often, quoted where it first appears. */
export function currencyCandidates(lines: SegLine[]): Candidate[] {
  const code = currenciesIn(lines.map((l) => l.text).join('\n'))[0];
  if (!code) return [];
  for (let i = 0; i < lines.length; i++) {
    const at = currencyIndex(lines[i]!.text, code);
    if (at >= 0) return [cand(lines[i]!, i, code, at, at + 1, 0.6, 'currency')];
  }
  return [];
}

export function firstDateCandidates(lines: SegLine[]): Candidate[] {
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.text;
    // Not a part of a longer number ("Tel. : 05.22.95.66.66") nor on a contact line.
    const d = findDates(text).find(
      (h) =>
        !/^[./-]?\d/.test(text.slice(h.end)) &&
        !/\b(tel|fax|phone|h\/?p|mobile)\b[^\d]{0,6}$/i.test(text.slice(0, h.start)),
    );
    if (d) return [cand(lines[i]!, i, d.iso, d.start, d.end, 0.45, 'first date')];
  }
  return [];
}

export function patternCandidates(lines: SegLine[], re: RegExp, label: string): Candidate[] {
  for (let i = 0; i < lines.length; i++) {
    const m = new RegExp(re.source, re.flags.replace('g', '')).exec(lines[i]!.text);
    if (m) return [cand(lines[i]!, i, m[0].trim(), m.index, m.index + m[0].length, 0.5, label)];
  }
  return [];
}
