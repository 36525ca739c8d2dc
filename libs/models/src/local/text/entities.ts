// Named things contracts and invoices print: organisations (a capitalised name ending in a legal
// form), governing-law places and durations. Regular expressions, not NER: they are deterministic,
// fast, and good enough on the formal register of these documents.
// Legal forms of many countries: US/UK (Inc, Corp, LLC, LLP, Ltd, PLC), Malaysia (Sdn Bhd, Bhd,
// S/B, Berhad), Singapore (Pte Ltd), India (Pvt Ltd), Australia (Pty Ltd), Germany/Austria/
// Switzerland (GmbH, AG, KG, e.K.), France (SARL, SAS, SA), Benelux (BV, NV), Italy (S.p.A.,
// S.r.l.), Spain (S.L.), Nordics (Oy, A/S, ApS), Poland (Sp. z o.o.), Czechia/Slovakia (s.r.o.),
// Hungary (Kft), Japan (K.K.), Indonesia (Tbk), Latin America (Ltda), in print's usual casings
// (and "SDN BHD" as OCR commonly misreads it: "SON BHD", "SDN BHO", "SDN BELD").
const SUFFIX = String.raw`(?:Sdn\.?\s*Bhd\.?|S[DO0]N\.?\s*B[HN][DO0]\)?\.?|SDN\.?\s*B[A-Z0]{2,3}\)?\.?|Bhd\.?|BHD\.?|Berhad|BERHAD|S\/B|Pte\.?\s+Ltd\.?|PTE\.?\s+LTD\.?|Co\.?,?\s+Ltd\.?|CO\.?,?\s+LTD\.?|Inc\.?|INC\.?|Incorporated|Corporation|CORPORATION|Corp\.?|CORP\.?|Company|COMPANY|Co\.|CO\.?|Ltd\.?|LTD\.?|Limited|LIMITED|L\.?L\.?C\.?|L\.?L\.?P\.?|L\.P\.|PLC|plc|AG|GmbH|GMBH|KG|e\.K\.|B\.V\.|BV|N\.V\.|NV|N\.A\.|S\.A\.|SARL|S\.A\.R\.L\.|SAS|S\.A\.S\.|S\.p\.A\.|SpA|S\.r\.l\.|Srl|S\.L\.|Oy|A\/S|ApS|Sp\.\s*z\s*o\.\s*o\.|s\.r\.o\.|Kft\.?|K\.K\.|Tbk|Ltda\.?|Pvt\.?\s+Ltd\.?|PVT\.?\s+LTD\.?|Pty\.?\s+Ltd\.?|PTY\.?\s+LTD\.?)`;
// Name words: capitalised words, connectors, and short bracketed qualifiers ("(M)", "(KL)", "(SETIA ALAM)").
const WORD = String.raw`(?:[A-Z\u00C0-\u00DE][\w\u00C0-\u024F'’&.-]*|\([A-Z][A-Za-z.&' -]{0,20}\)|&|of|and|the|de|du|for)`;
const ORG_RE = new RegExp(String.raw`\b(${WORD}(?:\s+${WORD}){0,6}?),?\s+(${SUFFIX})(?![\w-])`, 'g');

// Capitalised words that open sentences or name defined terms rather than companies.
const GENERIC = new Set([
  'the',
  'this',
  'that',
  'such',
  'each',
  'any',
  'a',
  'an',
  'agreement',
  'between',
  'company',
  'party',
  'parties',
  'confidentiality',
  'confidential',
  'mutual',
  'non',
  'disclosure',
  'nondisclosure',
  'and',
  'of',
  'by',
  'for',
  'if',
  'to',
  'you',
  'we',
  'our',
  'exhibit',
  'ex',
  'with',
  'copy',
  'attention',
  'agreed',
  'confirmed',
  'dated',
  'date',
  'name',
  'title',
  'by:',
  'whereas',
  'in',
  'on',
  'at',
  'or',
]);

const ROLE_WORDS = new Set([
  'board',
  'directors',
  'committee',
  'subcommittee',
  'members',
  'shareholders',
  'stockholders',
  'officer',
  'officers',
  'chairman',
  'secretary',
  'counsel',
  'president',
]);

export interface OrgHit {
  name: string;
  start: number;
  end: number;
}

const ABBREVIATION = /^(mr|mrs|ms|dr|st|no|jr|sr|prof|mt|ft)\.$/i;

const LEGAL_TAIL = new RegExp(String.raw`[,\s]+${SUFFIX}$`, 'i');

export function findOrganisations(text: string): OrgHit[] {
  const out: OrgHit[] = [];
  ORG_RE.lastIndex = 0;
  for (let m = ORG_RE.exec(text); m; m = ORG_RE.exec(text)) {
    let words = m[1]!.split(/\s+/);
    // A sentence end inside the run ("Delaware. The Bank of …") starts the name after it; initials
    // ("J.") and the run's last word do not count.
    // Titles and abbreviations ("MR. D.I.Y.", "NO. 1 Trading", "ST. JOHN") end no sentence.
    const cut = words
      .slice(0, -1)
      .reduce((at, w, i) => (/[a-z]{2,}\.$|[A-Z]{2,}\.$|\d\.$/.test(w) && !ABBREVIATION.test(w) ? i + 1 : at), 0);
    words = words.slice(cut);
    // "Special Committee of the Board of Directors of UnionBanCal Corporation" names a body of the
    // company; the company is what follows the last "… of".
    const role = words.reduce((at, w, i) => (ROLE_WORDS.has(w.toLowerCase()) ? i : at), -1);
    if (role >= 0) {
      const of = words.indexOf('of', role);
      if (of >= 0) words = words.slice(of + 1);
      if (words[0] === 'the') words = words.slice(1);
    }
    // Drop leading generic words ("This Agreement between AOL Inc." keeps "AOL").
    while (
      words.length &&
      GENERIC.has(words[0]!.toLowerCase().replace(/[^a-z:]/g, '')) &&
      !(words[0] === 'The' && words.length > 2 && /^[A-Z]/.test(words[1]!))
    )
      words = words.slice(1);
    const core = words.filter((w) => !GENERIC.has(w.toLowerCase()));
    if (!core.length || !/^[A-Z]/.test(words[0] ?? '')) continue;
    // "the Company" and similar defined terms are not names.
    if (/^(Company|Co\.)$/.test(m[2]!) && (core.length < 2 || /\b(the|of|such|said)$/i.test(m[1]!))) continue;
    const name = `${words.join(' ')}${m[0].slice(m[0].lastIndexOf(m[1]!) + m[1]!.length)}`.trim().replace(/\s+/g, ' ');
    const start = m.index + m[0].indexOf(words[0]!);
    out.push({ name, start, end: m.index + m[0].length });
  }
  return out;
}

/** Name without legal form, folded: "Amazon Web Services, Inc." → "amazon web services". */
export function orgKey(name: string): string {
  let s = name.trim();
  for (let i = 0; i < 2; i++) s = s.replace(LEGAL_TAIL, '');
  return s
    .toLowerCase()
    .replace(/[^a-z0-9&-]+/g, ' ')
    .trim();
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  eighteen: 18,
  twenty: 20,
  'twenty-four': 24,
  thirty: 30,
  'thirty-six': 36,
  sixty: 60,
  ninety: 90,
};
const NUM_WORD_RE = Object.keys(NUMBER_WORDS)
  .sort((a, b) => b.length - a.length)
  .join('|');
const DURATION_RE = new RegExp(
  String.raw`\b(?:(${NUM_WORD_RE})\s*(?:\((\d+)\))?|(\d+))\s*(?:-\s*)?(year|month|week|day)s?\b`,
  'gi',
);

export interface DurationHit {
  value: string;
  amount: number;
  unit: string;
  start: number;
  end: number;
  raw: string;
}

/** Durations such as "three (3) years", "12 months", "two years" → "3 years", "12 months". */
export function findDurations(text: string): DurationHit[] {
  const out: DurationHit[] = [];
  DURATION_RE.lastIndex = 0;
  for (let m = DURATION_RE.exec(text); m; m = DURATION_RE.exec(text)) {
    const amount = m[2] ? Number(m[2]) : m[3] ? Number(m[3]) : NUMBER_WORDS[m[1]!.toLowerCase()]!;
    const unit = m[4]!.toLowerCase();
    out.push({
      value: `${amount} ${unit}${amount === 1 ? '' : 's'}`,
      amount,
      unit,
      start: m.index,
      end: m.index + m[0].length,
      raw: m[0],
    });
  }
  return out;
}

const PLACE = String.raw`([A-Z][A-Za-z]+(?:\s+(?:of\s+)?[A-Z][A-Za-z]+){0,3})`;
const LAW_RE = new RegExp(
  String.raw`\blaws?\s+of\s+(?:the\s+)?(?:(?:State|Commonwealth|Province|Republic|Kingdom|Canton)\s+of\s+)?${PLACE}`,
  'g',
);

export interface PlaceHit {
  value: string;
  start: number;
  end: number;
}

/** "governed by the laws of the State of New York" → "New York". */
export function findGoverningLaw(text: string): PlaceHit[] {
  const out: PlaceHit[] = [];
  LAW_RE.lastIndex = 0;
  for (let m = LAW_RE.exec(text); m; m = LAW_RE.exec(text)) {
    const value = m[1]!.replace(/\s+(Without|Applicable|And|In|Excluding|Notwithstanding)$/i, '').trim();
    if (/^(The|Such|Any|This|United States)$/.test(value)) continue;
    const start = m.index + m[0].lastIndexOf(m[1]!);
    out.push({ value, start, end: start + value.length });
  }
  return out;
}
