// Features of the kind of document read off its printed lines, for documents whose words alone do
// not say what they are (OCR'd scans and photos above all, whose words are misread and few):
// - a till slip (receipt, sales slip): narrow print (short lines), a total with its amount, item
//   lines ending in amounts and/or the payment at the till (cash, change, card) after the total;
// - an invoice's billing block: who is billed, when it is due, on what terms, to which account;
// - prose: lines of running words (an image of plain text);
// - a grid: rows holding several numbers each, or a column of short row labels (a table image
//   whose cells OCR reads as stacked words).
// Thresholds are shares and small counts that hold for the kind, not for any one file.

/** A money-like amount: two decimals (comma or point), optional currency before or a tax code after. */
const AMOUNT_AT_END = /\d[.,]\d{2}\s*(?:[A-Z$§€£*]{1,3})?\s*$/;
const AMOUNT = /\d[.,]\d{2}(?!\d)/;
const TOTAL_LABEL =
  /\b(total|totals|amount\s+due|amt\s+due|balance\s+due|to\s+pay|grand\s+total|net+\s+total|montant|totaal|summe|gesamt|jumlah|importe)\b/i;
const PAYMENT =
  /\b(cash|change|tender(?:ed)?|paid|card|visa|master\s*card|debit|tunai|baki|esp[eè]ces?|r[eé]gl[eé]|efectivo|pagado|rendu|bar|kembali)\b/i;
const BILLING: RegExp[] = [
  /\b(bill(?:ed)?|invoice[ds]?|sold|ship(?:ped)?)\s+to\b/i,
  /\b(due\s+date|date\s+due|payable\s+by|pay\s+by|f[aä]llig|[eé]ch[eé]ance|vervaldatum)\b/i,
  /\b(payment\s+terms|terms\s+of\s+payment|terms\s*:\s*net|zahlungsbedingungen|conditions\s+de\s+paiement|betalingstermijn)\b/i,
  /\b(billing\s+(?:period|date|address)|remit(?:tance)?)\b/i,
  /\b(purchase\s+order|p\.?\s?o\.?\s+(?:no|number|#)|order\s+(?:no|number|id|date))\b/i,
  /\b(customer|client|account|kunden|klant)\s*(?:no|number|nr|id|#|nummer)\b/i,
  /\b(iban|swift|bic|bank\s+account|sort\s+code|routing\s+number)\b/i,
];

const isTableRow = (l: string) => /^\|.*\|$/.test(l) || /^\|?\s*:?-{3,}/.test(l);

/** Tokens that are numbers (counts, decimals, percentages, ranges, amounts). */
const numericTokens = (l: string) =>
  l.split(/[\s|]+/).filter((t) => /^[$€£(~<>≤≥±+-]?\d[\d,.]*(?:%|\)|[-–]\d[\d,.]*)?\*{0,2}$/.test(t)).length;

function isProse(l: string): boolean {
  const ws = l.split(/\s+/).filter(Boolean);
  if (ws.length < 6) return false;
  const wordy = ws.filter((w) => /^[("'“‘]?[\p{L}][\p{L}'’-]*[.,;:!?)"'”’]*$/u.test(w)).length;
  const letters = l.match(/\p{L}/gu) ?? [];
  const lower = l.match(/\p{Ll}/gu) ?? [];
  return wordy >= 0.7 * ws.length && numericTokens(l) <= 1 && lower.length >= 0.6 * letters.length;
}

export function lineFeatures(pageText: string): string[] {
  const out: string[] = [];
  const lines = pageText
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^!\[/.test(l));
  const textLines = lines.filter((l) => !isTableRow(l));
  if (!lines.length) return out;

  // Prose: most lines are running words.
  const prose = textLines.filter(isProse).length;
  if (prose >= 2 && prose >= 0.5 * lines.length) out.push('__prose');

  // Narrow print: nine in ten lines no longer than a till roll's width.
  const lengths = textLines.map((l) => l.length).sort((a, b) => a - b);
  const narrow = textLines.length >= 8 && lengths[Math.floor(lengths.length * 0.9)]! <= 48;
  if (narrow) out.push('__narrow_print');

  // The totals block of a sale: a total with its amount, then (often) how it was paid.
  const totalAt = textLines.findIndex((l) => TOTAL_LABEL.test(l) && AMOUNT.test(l));
  const itemAmounts = textLines.filter((l) => AMOUNT_AT_END.test(l)).length;
  const paidAtTill =
    totalAt >= 0 && textLines.slice(totalAt).some((l) => PAYMENT.test(l) && (AMOUNT.test(l) || /\d/.test(l)));
  if (paidAtTill) out.push('__till_payment');
  if (narrow && totalAt >= 0 && (itemAmounts >= 3 || paidAtTill)) out.push('__receipt_layout');

  // An invoice's billing block: two or more of its distinct cues.
  if (BILLING.filter((re) => re.test(pageText)).length >= 2) out.push('__billing');

  // A grid: rows of several numbers, or a column of short row labels with no sentences.
  const rows = lines.filter((l) => numericTokens(l) >= 2).length;
  if (lines.length >= 5 && rows >= 0.4 * lines.length && prose < 0.3 * lines.length) out.push('__grid');
  const labels = textLines.filter((l) => l.split(/\s+/).length <= 2 && !/[.!?]$/.test(l)).length;
  if (textLines.length >= 8 && labels >= 0.8 * textLines.length) out.push('__grid');
  return [...new Set(out)];
}
