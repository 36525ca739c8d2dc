// Finders for what receipts, bills and shop invoices print without labels: the issuing company
// (a name with a legal-form suffix, or the first name-like line, at the top), its postal address
// (the block of lines after the name) and the amount paid (totals by their labels and their order:
// subtotal, tax, rounding, total, then cash and change). Each returns candidates with a verbatim quote.
import { findAmounts } from '../text/amounts';
import { findDates } from '../text/dates';
import { findOrganisations } from '../text/entities';
import { plain, type SegLine } from '../text/lines';
import { lineCandidate as cand, type Candidate } from './labelled-values';

/** How far down a document its letterhead (company name and address) can be. */
const HEAD_LINES = 10;

// Lines of the letterhead that are not the name: document titles, registration and tax numbers,
// contacts, dates and times.
const NOT_A_NAME =
  /\b(tax\s+invoice|invoice|receipt|resit|bill|factuur|facture|factura|fattura|rechnung|quittung|recibo|ricevuta|nota|welcome|selamat|cash\s*sale|official|simplified|tel|telephone|phone|fax|h\/?p|e-?mail|www|https?|gst|sst|vat|tax|reg(istration)?\.?\s*(no|number)?|co\.?\s*no|company\s+no|roc|business|cashier|date|time|table|order|member|counter|terminal|pos)\b|@|\b\d{1,2}[:.]\d{2}\s*(am|pm)?\b/i;

/** The issuer at the top of the document: a name with a legal form first, else the first name-like line. */
export function companyCandidates(lines: SegLine[]): Candidate[] {
  const head = lines.filter((l) => l.page === (lines[0]?.page ?? 1)).slice(0, HEAD_LINES);
  const out: Candidate[] = [];
  head.forEach((line, i) => {
    // A registration number printed after the name is not part of it: "(82256-V)".
    const text = edgeClean(plain(line.text).replace(/\s*[({[]\s*[\w-]*\d{4,}[\w\s~-]{0,6}[)}\]]?\s*$/, ''));
    const orgs = findOrganisations(text);
    // A legal form closing a line the name began above ("ENTERPRISE (SOUTH" / "BAY) SDN BHD"): the
    // line is the name's end as printed, its bracket opened on the line before.
    if (!orgs.length && SUFFIX_ONLY.test(text) && text.length <= 40 && namePartsAbove(head, i).length)
      orgs.push({ name: text, start: 0, end: text.length });
    for (const o of orgs) {
      const above = i > 0 && head[i - 1]!.seg.id === line.seg.id ? plain(head[i - 1]!.text).trim() : undefined;
      // The whole line when the name fills it ("MR. D.I.Y. (M) SDN BHD", "99 SPEED MART S/B").
      const rest = text.slice(0, o.start) + text.slice(o.end);
      const whole = rest.replace(/[\s,.;:]+/g, '').length <= 12 && !/[:@]/.test(rest);
      // "S/B" carries its own abbreviation mark: a full stop after it ends the line, not the name.
      let value = (whole ? text : o.name).replace(/(S\/B)\.$/i, '$1');
      // A legal form with no name read before it ("G ARDE NIA BAK RIES KI )SDN BHD"): the line up
      // to it is the name as printed, misread as it may be; the form alone names nothing.
      if (!value.replace(SUFFIX_ONLY, '').replace(/[^\p{L}\d]/gu, '') && !isNameLine(above ?? ''))
        value = text.slice(0, o.end).trim();
      let first = line;
      const above2 = namePartsAbove(head, i);
      if (above2.length && (/^[\s(]*$/.test(value.replace(SUFFIX_ONLY, '')) || continues(above2, text))) {
        // The name runs over the lines above its legal form: "GARDENIA BAKERIES (KL)" / "SDN BHD",
        // "HARDWARE ENTERPRISE (SOUTH" / "BAY) SDN BHD" (a bracket opened above).
        const parts =
          /^[\s(]*$/.test(value.replace(SUFFIX_ONLY, '')) && !continues(above2, text) ? above2.slice(-1) : above2;
        value = `${parts.map((l) => l.text.trim()).join(' ')} ${value}`;
        first = parts[0]!;
      } else if (
        above !== undefined &&
        isNameLine(above) &&
        above.split(/\s+/)[0]!.toLowerCase() === value.split(/\s+/)[0]!.toLowerCase()
      ) {
        // A trading name above the legal entity's ("SANYU STATIONERY SHOP" over "SANYU SUPPLY SDN BHD").
        value = above;
        first = head[i - 1]!;
      }
      // "Owned by: SANYU SUPPLY SDN BHD" under a shop's name: the owner, not the name it trades as.
      const owner = OWNER.test(text.slice(0, o.start)) || (i > 0 && OWNER.test(plain(head[i - 1]!.text).slice(-40)));
      out.push(
        quoted(
          first,
          line,
          value,
          i,
          owner ? 0.3 : 0.85 - head.indexOf(first) * 0.05,
          owner ? 'owner (legal form)' : 'legal form',
        ),
      );
    }
  });
  // The first line, when it reads as a name, is the name the document goes by (a trading name
  // over the legal entity printed lower down); other name-like lines only when nothing else is found.
  // Only on receipts and slips (payment lines printed): an invoice's first line is as often a
  // heading or the customer.
  const top = head.findIndex((l) => isNameLine(edgeClean(plain(l.text))) && !looksLikeAddress(plain(l.text)));
  if (top >= 0 && isReceiptLike(lines)) {
    const text = edgeClean(plain(head[top]!.text));
    const words = text.split(/\s+/).filter((w) => /\p{L}/u.test(w));
    const wordy = words.length >= 2 && words.reduce((n, w) => n + w.length, 0) / words.length >= 4;
    const named = out.some((c) => c.score > 0.3);
    const score = top === 0 && wordy ? 0.78 : named ? 0 : 0.55 - top * 0.03;
    if (score > 0) out.push(quoted(head[top]!, head[top]!, text, top, score, 'first name-like line'));
    // A first line of short words may be a logo read as text ("In gang"): the name-like line
    // printed right over the address block (a registration number between) is the name then.
    if (!wordy && !named) {
      for (let i = top + 1; i < Math.min(head.length - 1, 6); i++) {
        const name = edgeClean(plain(head[i]!.text));
        // Not a line inside an address ("Subang Perdana," between street and town).
        const inAddress = /,$/.test(name) || looksLikeAddress(plain(head[i - 1]!.text));
        if (!isNameLine(name) || looksLikeAddress(name) || inAddress || head[i + 1]!.seg.id !== head[i]!.seg.id)
          continue;
        let j = i + 1;
        while (j < head.length - 1 && isRegistration(plain(head[j]!.text).trim())) j++;
        if (head[j]!.seg.id !== head[i]!.seg.id || !looksLikeAddress(plain(head[j]!.text))) continue;
        out.push(quoted(head[i]!, head[i]!, name, i, 0.7, 'name over the address'));
        break;
      }
    }
  }
  return out;
}

/**
 * The lines right above a legal-form line at the top that carry the rest of its name: at most two,
 * name-like (letters, no digits, not an address, title or contact), printed in the same case as the
 * legal-form line, verbatim (no border marks).
 */
function namePartsAbove(head: SegLine[], i: number): SegLine[] {
  const line = head[i]!;
  const upper = (t: string) => t === t.toUpperCase();
  const parts: SegLine[] = [];
  for (let k = i - 1; k >= 0 && k >= i - 2; k--) {
    const l = head[k]!;
    const t = l.text.trim();
    if (l.seg.id !== line.seg.id || plain(t) !== t || edgeClean(t) !== t) break;
    if (!isNameLine(t) || /\d/.test(t) || looksLikeAddress(t) || OWNER.test(t) || findOrganisations(t).length) break;
    if (upper(t) !== upper(plain(line.text))) break;
    parts.unshift(l);
  }
  return parts;
}

/** A legal-form line that continues the line above: a bracket closed that opened above, a connector at the break. */
function continues(above: SegLine[], text: string): boolean {
  const joined = `${above.map((l) => l.text.trim()).join(' ')} ${text}`;
  const opened = (t: string) => (t.match(/\(/g) ?? []).length - (t.match(/\)/g) ?? []).length;
  return (
    (opened(text) < 0 && opened(joined) === 0) ||
    /(&|\band|\bof|-)$/i.test(above.at(-1)!.text.trim()) ||
    /^\p{Ll}/u.test(text)
  );
}

/**
 * A line without the marks OCR reads from borders and rules at its edges: "| RESTORAN WAN SHENG",
 * "UNIHAKKA INTERNATIONAL SDN BHD ." (a mark set apart by a space; "SDN. BHD." keeps its stops).
 */
export function edgeClean(text: string, edge: 'start' | 'end' | 'both' = 'both'): string {
  let t = text.trim();
  if (edge !== 'end') t = t.replace(/^[^\p{L}\p{N}(\s]+\s+/u, '');
  if (edge !== 'start') t = t.replace(/\s+[^\p{L}\p{N})\s]+$/u, '');
  return t;
}

/** Labels that put an owner or operator's legal name under a trading name. */
const OWNER =
  /\b(owned|operated|managed|franchised|run)\s+by\b\s*:?\s*$|\b(a\s+)?(member|subsidiary|division|franchisee)\s+of\b\s*:?\s*$/i;

const SUFFIX_ONLY =
  /\b(S[DO0]N\.?\s*B[HN][DO0]\)?\.?|SDN\.?\s*B[A-Z0]{2,3}\)?\.?|BHD\.?|S\/B|LTD\.?|INC\.?|LLC|GMBH|PTE\.?\s+LTD\.?)\s*$/i;

function isNameLine(text: string): boolean {
  const letters = (text.match(/\p{L}/gu) ?? []).length;
  if (letters < 4 || letters < 0.6 * text.replace(/\s/g, '').length || NOT_A_NAME.test(text) || findDates(text).length)
    return false;
  return /\p{L}{2,}.*\s.*\p{L}{2,}|\p{L}{5,}/u.test(text);
}

/** A candidate whose quote runs from `first` to `last` (lines of one segment), verbatim. */
function quoted(first: SegLine, last: SegLine, value: string, order: number, score: number, label: string): Candidate {
  if (first === last) {
    const at = first.text.indexOf(value);
    return cand(first, order, value, Math.max(0, at), Math.max(0, at) + value.length, score, label);
  }
  const quote = first.seg.markdown
    .split('\n')
    .slice(first.index, last.index + 1)
    .join('\n')
    .trim();
  return { value, seg: first.seg, page: first.page, quote, score, order, label };
}

// Street words of many countries, postcodes (4–6 digits, UK, Canada, NL), unit and floor numbers.
const STREET =
  /\b(no\.?|lot|unit|suite|ste|floor|flr|fl|level|lvl|block|blk|bldg|building|jalan|jln|lorong|lrg|taman|tmn|kawasan|bandar|seksyen|section|street|st|road|rd|avenue|ave|boulevard|blvd|lane|ln|drive|dr|way|place|pl|square|sq|highway|hwy|strasse|straße|str|weg|platz|gasse|rue|avenue|chemin|place|via|viale|piazza|calle|avenida|plaza|carrer|rua|straat|laan|plein|gracht|route|autoroute|chauss[ée]e|quai|impasse|all[ée]e|industrial|park|centre|center|mall|plaza|complex|tower|court)\b/i;
const POSTCODE = /\b\d{4,6}\b|\b[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}\b|\b[A-Z]\d[A-Z]\s?\d[A-Z]\d\b|\b\d{4}\s?[A-Z]{2}\b/;

// A house or lot number opening the line: "109, SS21/1A,", "12-3A, …".
const HOUSE_NUMBER = /^\d{1,4}[A-Z]?(?:-\d{1,4}[A-Z]?)?\s*,\s*\S/;

export function looksLikeAddress(text: string): boolean {
  return STREET.test(text) || HOUSE_NUMBER.test(text) || (POSTCODE.test(text) && /\p{L}{3,}/u.test(text));
}

/**
 * The postal address: the block of lines after the company name (registration numbers skipped),
 * up to contacts, tax numbers, titles or dates, at most six lines, within one segment so the
 * quote is verbatim. The value is the lines joined by spaces.
 */
export function addressCandidates(lines: SegLine[], company?: Candidate): Candidate[] {
  const head = lines.filter((l) => l.page === (lines[0]?.page ?? 1)).slice(0, HEAD_LINES + 6);
  // The name's last line (a name printed over two or three lines is quoted whole).
  const nameEnd =
    company?.quote
      .split('\n')
      .filter((l) => l.trim())
      .at(-1) ?? '';
  const at = company ? head.findIndex((l) => l.seg.id === company.seg.id && l.text.includes(nameEnd.slice(0, 20))) : -1;
  let start = at + 1;
  // Parts of lines: the address may start on the name's own line, and a contact may share its last line.
  const block: Array<{ line: SegLine; text: string }> = [];
  const companyLine = at >= 0 ? head[at]! : undefined;
  const nameOnLine =
    company && companyLine && !companyLine.text.includes(String(company.value))
      ? findOrganisations(plain(companyLine.text))[0]?.name
      : company && String(company.value);
  const rest = companyLine && nameOnLine ? afterName(plain(companyLine.text), nameOnLine) : undefined;
  if (companyLine && rest && looksLikeAddress(rest) && !NOT_A_NAME.test(rest))
    block.push({ line: companyLine, text: rest });
  // Registration numbers and qualifiers printed under the name: "(742016-W)", "Co. Reg. 12345-X".
  if (!block.length) while (start < head.length && isRegistration(plain(head[start]!.text))) start++;
  let postcodeSeen = block.some((b) => POSTCODE_TOWN.test(b.text));
  for (let i = start; i < head.length && block.length < 6; i++) {
    const line = head[i]!;
    const full = plain(line.text).trim();
    // "75, JALAN SS 22/19, 47400 PJ TEL : 03-7731 8169": the address ends where the contact starts.
    // "… 81200 JOHOR BAHRU, JOHOR TAX INVOICE": a document title printed on the address's line ends it too.
    const contact = CONTACT.exec(full) ?? TITLE_TAIL.exec(full);
    const text =
      contact && contact.index > 0 && looksLikeAddress(full.slice(0, contact.index))
        ? full.slice(0, contact.index).replace(/[\s,;:|-]+$/, '')
        : full;
    if (block.length && line.seg.id !== block[0]!.line.seg.id) break;
    // A contact line ("Mobile /Whatsapps : +6012-…") is no address line.
    const contactLine = contact !== null && text === full;
    if (!text || contactLine || NOT_A_NAME.test(text) || findDates(text).length || isRegistration(text)) {
      if (block.length) break;
      continue; // titles or contacts above the address: look on
    }
    // The legal entity printed under a trading name ("Becon Enterprise Sdn Bhd (82256-V)").
    if (
      !block.length &&
      findOrganisations(text).length &&
      !looksLikeAddress(afterName(text, findOrganisations(text)[0]!.name) ?? '')
    )
      continue;
    if (!block.length && !looksLikeAddress(text)) {
      // A branch line, the shop's name and its place ("CORNER PIZZA TAMAN JAYA"), right over the
      // street line opens the address: it says where the shop is.
      const next = head[i + 1];
      if (
        nameOnLine &&
        next?.seg.id === line.seg.id &&
        new RegExp(`^${escapeRe(nameOnLine)}\\s+\\p{L}{3,}`, 'iu').test(text) &&
        !findOrganisations(text).length &&
        looksLikeAddress(plain(next.text)) &&
        !NOT_A_NAME.test(plain(next.text))
      ) {
        block.push({ line, text });
        continue;
      }
      if (i - start >= 2) break;
      continue;
    }
    // After the postcode and town only a state or country line belongs to the address.
    if (postcodeSeen && !looksLikeStateLine(text)) break;
    block.push({ line, text });
    if (text !== full) break;
    if (postcodeSeen) break; // the state line after the town closes it
    // A line ending with the postcode and town closes the block, unless a state line follows.
    if (POSTCODE_TOWN.test(edgeClean(text, 'end'))) postcodeSeen = true;
  }
  if (!block.length || !block.some((b) => /\d/.test(b.text))) return [];
  // A stray mark OCR reads after the last line's end ("40170 SETIA ALAM t") is no part of the
  // address (the value stays inside the quote: only the block's end is cut).
  const tail = block[block.length - 1]!;
  tail.text = tail.text.replace(/\s+(?:\p{Ll}|[^\p{L}\p{N}\s.,()]{1,2})$/u, '');
  // Border marks at the block's two ends likewise ("| NO. 5, JALAN …", "… JOHOR |").
  block[0]!.text = edgeClean(block[0]!.text, 'start');
  tail.text = edgeClean(tail.text, 'end');
  const first = block[0]!.line,
    last = block[block.length - 1]!.line;
  const quote = first.seg.markdown
    .split('\n')
    .slice(first.index, last.index + 1)
    .join('\n')
    .trim();
  const value = block.map((b) => b.text).join(' ');
  return [
    { value, seg: first.seg, page: first.page, quote, score: 0.7, order: lines.indexOf(first), label: 'address block' },
  ];
}

const POSTCODE_TOWN = /\b\d{4,6}\b\s+\p{L}[\p{L} .,'-]*[.,]?$/u;
const TITLE_TAIL = /\b(tax\s*invoice|invoice|receipt|cash\s*sales?|bill)\s*$/i;
const CONTACT = /\b(tel|telephone|phone|fax|h\/?p|mobile|e-?mail|whatsapps?)\b\s*(no\.?)?\s*[:.]?\s*[+(\d]/i;

/** What follows the company's name on its own line, its registration number skipped: "(139386 X) Lot 3, …". */
function afterName(text: string, name: string): string | undefined {
  const at = text.indexOf(name);
  if (at < 0) return undefined;
  const rest = text
    .slice(at + name.length)
    .replace(/^[\s,.;:-]*([({[]\s*[\w\s.:-]*\d{4,}[\w\s.-]*[)}\]]\s*)?[\s,.;:-]*/, '')
    .trim();
  return rest.length >= 6 ? rest : undefined;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function isRegistration(text: string): boolean {
  if (/^\d{4,6}\s+\p{L}{3,}/u.test(text)) return false; // "43200 CHERAS": a postcode and town
  return /^\(?[\w\s.:#-]{0,14}\d{4,}[\w\s./-]{0,8}\)?[.,]?$/.test(text) && !/\p{L}{4,}\s+\p{L}{3,}/u.test(text);
}

function looksLikeStateLine(text: string): boolean {
  const t = text.trim();
  return t.length > 0 && t.length <= 30 && /^\p{L}[\p{L} .,'-]*$/u.test(t) && !NOT_A_NAME.test(t);
}

const TOTAL_LABEL =
  /\b(grand\s*total|total|jumlah|amount\s+due|amt\.?\s+due|balance\s+due|amount\s+payable|nett?|to\s+pay|montant|gesamt|totaal|importe)\b/i;
// Not the amount paid: sums before tax, counts, tax lines, savings.
const NOT_PAID =
  /sub\s*-?\s*total|excl|excluding|before|w\/o|qty|quantity|items?\b|savings?|discount|disc\b|\btax\b(?!\s*incl)|\bgst\b(?!\s*\)?\s*$)|\bvat\b|\bsst\b|service\s+charge|points?|deposit|tendered/i;
const INCLUDED = /incl|inclusive|after|rounded|nett?\b|grand|payable|due|to\s+pay/i;
const PAYMENT =
  /\b(cash|change|tender(ed)?|paid|payment|visa|master\s*card|card|debit|credit|e-?wallet|balance|tunai|esp[eè]ces?|r[eé]gl[eé]|efectivo|pagado|bar|rendu)\b/i;

/** Receipts and slips print how they were paid (cash, change, card). */
export function isReceiptLike(lines: SegLine[]): boolean {
  return lines.some((l) =>
    /\b(cash|change|tunai|baki|tendered|receipt|resit|cashier|esp[eè]ces?|efectivo)\b/i.test(l.text),
  );
}

interface Amt {
  line: SegLine;
  i: number;
  value: number;
  start: number;
  end: number;
  labelled: 'total' | 'cash' | 'change' | 'round' | 'none';
}

/**
 * The amount paid on a receipt: candidates on total lines (value on the line or the next), the
 * one equal to cash minus change when both are printed, else the last total before the payment
 * lines, preferring totals that say they include tax or rounding. Empty when the document prints
 * no payment lines (not a receipt: the invoice logic applies).
 */
export function paidTotalCandidates(lines: SegLine[]): Candidate[] {
  const amts: Amt[] = [];
  lines.forEach((line, i) => {
    const text = plain(line.text);
    const labelled: Amt['labelled'] = /\bchange\b|\bbaki\b|\brendu\b/i.test(text)
      ? 'change'
      : /\b(cash|tunai|tender(ed)?|paid|visa|master\s*card|card|esp[eè]ces?|r[eé]gl[eé]|efectivo|pagado)\b/i.test(text)
        ? 'cash'
        : // "Payment Type RM40.00": what was paid, as cash is (a "total payment" stays a total).
          /\bpayment\s+(type|method|mode)\b/i.test(text) && !TOTAL_LABEL.test(text)
          ? 'cash'
          : /round(ing)?\s*(adj|adjustment)/i.test(text)
            ? 'round'
            : TOTAL_LABEL.test(text) && (!NOT_PAID.test(text) || INCLUDED.test(text))
              ? 'total'
              : 'none';
    // On a total line an amount glued to a few letters is a misread currency ("Total fM1.00").
    const found = findAmounts(text, { glued: labelled === 'total' });
    for (const a of found) {
      const at = line.text.indexOf(a.raw);
      amts.push({ line, i, value: a.value, start: Math.max(0, at), end: Math.max(0, at) + a.raw.length, labelled });
    }
    // A total label alone on its line: its amount is on the next line.
    if (
      labelled === 'total' &&
      !found.length &&
      i + 1 < lines.length &&
      !/\p{L}{3,}/u.test(plain(lines[i + 1]!.text).replace(/\b(RM|MYR|USD|EUR|SGD|GBP)\b/g, ''))
    ) {
      const next = lines[i + 1]!;
      for (const a of findAmounts(plain(next.text), { glued: true }).slice(0, 1)) {
        const at = next.text.indexOf(a.raw);
        amts.push({
          line: next,
          i: i + 1,
          value: a.value,
          start: Math.max(0, at),
          end: Math.max(0, at) + a.raw.length,
          labelled: 'total',
        });
      }
    }
  });
  // A tax summary whose last column is the total ("Amt(RM) GST(RM) Total(RM)" over
  // "SR 6 7,395.09 443.71 7,838.80"): the row's last amount, when amount + tax make it.
  lines.forEach((line, i) => {
    const text = plain(line.text);
    if (
      !/\b(total|jumlah)\b\s*(\(\s*\p{L}{1,3}\s*\))?[^\p{L}]*$/iu.test(text) ||
      (text.match(/\p{L}{2,}/gu) ?? []).length < 3
    )
      return;
    if (findAmounts(text).length || i + 1 >= lines.length) return;
    const next = lines[i + 1]!;
    const row = findAmounts(plain(next.text));
    const [a, b, c] = row.slice(-3);
    if (!a || !b || !c || Math.abs(a.value + b.value - c.value) >= 0.005) return;
    const at = next.text.lastIndexOf(c.raw);
    amts.push({ line: next, i: i + 1, value: c.value, start: at, end: at + c.raw.length, labelled: 'total' });
  });
  const firstPayment = amts.find((a) => a.labelled === 'cash' || a.labelled === 'change');
  if (!firstPayment && !lines.some((l) => PAYMENT.test(plain(l.text)))) return [];
  const totals = amts.filter((a) => a.labelled === 'total' && a.value > 0);
  const cash = amts.find((a) => a.labelled === 'cash');
  const change = amts.find((a) => a.labelled === 'change' && (!cash || a.i >= cash.i));
  const out: Candidate[] = [];
  const push = (a: Amt, score: number, label: string) =>
    out.push(cand(a.line, a.i, a.value, a.start, a.end, score, label));
  if (cash && change && cash.value >= change.value) {
    const paid = Math.round((cash.value - change.value) * 100) / 100;
    const match = totals.filter((t) => Math.abs(t.value - paid) < 0.005);
    if (match.length) push(match[match.length - 1]!, 0.97, 'total = cash − change');
    else {
      // The total's label may be misread or missing: an amount printed before the cash line that
      // equals cash minus change is the amount paid.
      const any = amts.filter((a) => a.i < cash.i && a.labelled !== 'change' && Math.abs(a.value - paid) < 0.005);
      if (any.length) push(any[any.length - 1]!, 0.95, 'amount = cash − change');
    }
  }
  // The sum the receipt states in parts: subtotal + tax + rounding. When a printed total disagrees
  // (a misread digit), an amount on a total or payment line that equals the sum is the amount paid.
  const sum = statedSum(lines);
  if (sum !== undefined) {
    const agree = amts.filter(
      (a) => (a.labelled === 'total' || a.labelled === 'cash') && Math.abs(a.value - sum) < 0.005,
    );
    if (agree.length) push(agree[0]!, 0.96, 'subtotal + tax + rounding');
  }
  // The last total before the payment lines (totals after them restate it), those saying they
  // include tax or rounding first.
  const before = totals.filter((t) => !firstPayment || t.i <= firstPayment.i);
  const pool = before.length ? before : totals;
  const incl = pool.filter((t) => INCLUDED.test(plain(t.line.text)));
  const pick = (incl.length ? incl : pool).at(-1);
  if (pick) push(pick, 0.93, 'last total before payment');
  // Cash paid with no change and no total found: the cash amount is what was paid.
  if (!pick && cash && !change) push(cash, 0.6, 'cash paid');
  return out;
}

const SUBTOTAL = /\bsub\s*-?\s*total\b|\btotal\b.*\b(excl(uding)?|before\s+(tax|gst))\b/i;
const TAX_LINE = /^\s*(total\s+)?(gst|vat|sst|tax)\b(?!.*\b(summary|incl|inclusive|no|id|reg)\b)/i;
const ROUNDING = /\bround(ing)?\b/i;

/**
 * subtotal + tax + rounding when the receipt prints the parts in that order (rounding may be
 * absent), each with its amount last on its line; undefined otherwise.
 */
function statedSum(lines: SegLine[]): number | undefined {
  // Each part is the first line with its label after the previous part, its amount last on the line.
  const partOf = (re: RegExp, from: number) => {
    const i = lines.findIndex((l, k) => k > from && re.test(plain(l.text)));
    const a = i >= 0 ? findAmounts(plain(lines[i]!.text)).at(-1) : undefined;
    return a ? { i, value: a.value, text: plain(lines[i]!.text) } : undefined;
  };
  const sub = partOf(SUBTOTAL, -1);
  const tax = sub && partOf(TAX_LINE, sub.i);
  const round = tax && partOf(ROUNDING, tax.i);
  if (!sub || !tax || tax.i < sub.i || tax.value >= sub.value) return undefined;
  const r =
    round && round.i > tax.i
      ? /-\s*(RM\s*)?\d|\(\s*[\d.]+\s*\)/i.test(round.text)
        ? -Math.abs(round.value)
        : round.value
      : 0;
  if (Math.abs(r) >= 0.1) return undefined;
  return Math.round((sub.value + tax.value + r) * 100) / 100;
}
