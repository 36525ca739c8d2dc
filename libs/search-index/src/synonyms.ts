// The synonym list of search (docs/api.md, Limits: "bills also matches invoice and charges").
// Each line is a group: its first word (or that word's plural: bills) also matches the others.
// Members are written as people type them; PostgreSQL's English stemmer normalises them like the indexed text
// (bills/bill, charges/charge). A member with a space is matched as a phrase.
// Keep groups tight: a synonym that is merely related (invoice ~ payment) floods results.
const GROUPS: string[][] = [
  // billing
  ['bill', 'invoice', 'charges'],
  ['invoice', 'bill', 'billing'],
  ['charge', 'charges', 'fee', 'fees'],
  ['fee', 'fees', 'charge', 'charges', 'cost'],
  ['amount', 'sum', 'total'],
  ['total', 'amount', 'sum', 'subtotal'],
  ['price', 'cost', 'rate', 'unit price'],
  ['cost', 'costs', 'expense', 'expenses', 'expenditure', 'price'],
  ['tax', 'taxes', 'vat', 'gst', 'sales tax'],
  ['vat', 'tax', 'btw', 'mwst'],
  ['gst', 'tax', 'igst', 'cgst', 'sgst'],
  ['payment', 'payments', 'paid', 'remittance', 'pay'],
  ['due', 'payable', 'outstanding'],
  ['balance', 'outstanding', 'remaining'],
  ['discount', 'rebate', 'reduction'],
  ['refund', 'reimbursement', 'credit note'],
  ['receipt', 'proof of payment'],
  ['quantity', 'qty', 'units'],
  ['number', 'no', 'nr', 'num', 'id'],
  ['shipping', 'delivery', 'freight', 'shipment'],
  ['order', 'purchase order', 'po'],
  ['customer', 'client', 'buyer', 'purchaser', 'bill to'],
  ['vendor', 'supplier', 'seller', 'merchant', 'issuer'],
  ['seller', 'vendor', 'supplier', 'sold by'],
  ['currency', 'usd', 'eur', 'dollars', 'euros'],
  ['subscription', 'recurring'],
  // accounting and reports
  ['revenue', 'revenues', 'sales', 'turnover', 'income'],
  ['profit', 'earnings', 'net income', 'margin'],
  ['loss', 'losses', 'deficit'],
  ['assets', 'holdings'],
  ['liabilities', 'debts', 'obligations'],
  ['equity', 'shareholders', 'capital'],
  ['cash', 'liquidity'],
  ['budget', 'forecast'],
  ['annual', 'yearly', 'fiscal year', 'fy'],
  ['quarterly', 'quarter'],
  ['growth', 'increase'],
  ['statement', 'report', 'summary'],
  ['account', 'accounts', 'iban', 'account number'],
  ['bank', 'banking', 'transfer', 'wire'],
  ['salary', 'wages', 'compensation'],
  // contracts and legal
  ['agreement', 'contract'],
  ['contract', 'agreement'],
  ['nda', 'non-disclosure', 'confidentiality agreement'],
  ['confidential', 'confidentiality', 'proprietary', 'secret'],
  ['terminate', 'termination', 'cancel', 'cancellation'],
  ['termination', 'terminate', 'cancellation'],
  ['term', 'duration', 'period'],
  ['party', 'parties', 'signatory', 'signatories'],
  ['signature', 'signed', 'executed', 'sign'],
  ['effective', 'commencement'],
  ['jurisdiction', 'governing law', 'venue', 'courts'],
  ['liability', 'liable', 'indemnify', 'indemnification'],
  ['obligation', 'obligations', 'duties', 'responsibilities'],
  ['disclose', 'disclosure', 'reveal'],
  ['law', 'laws', 'legal', 'statute'],
  ['penalty', 'penalties', 'fine', 'damages'],
  // documents and data
  ['date', 'dated'],
  ['address', 'location', 'street'],
  ['phone', 'telephone', 'tel', 'mobile'],
  ['email', 'e-mail'],
  ['table', 'tables', 'tabular'],
  ['figure', 'chart', 'graph', 'diagram', 'image'],
  ['image', 'picture', 'photo', 'figure'],
  ['formula', 'equation'],
  ['code', 'source code', 'listing'],
  ['column', 'columns', 'field', 'fields'],
  ['row', 'rows', 'record', 'records', 'entry', 'entries'],
  ['sheet', 'worksheet', 'tab', 'spreadsheet'],
  ['spreadsheet', 'workbook', 'excel', 'sheet'],
  ['scan', 'scanned', 'ocr'],
  ['employee', 'staff', 'personnel', 'worker'],
  ['company', 'corporation', 'firm', 'organisation', 'organization', 'inc'],
  ['organisation', 'organization'],
  ['colour', 'color'],
  ['centre', 'center'],
  ['licence', 'license'],
  ['q1', 'first quarter'],
  ['q2', 'second quarter'],
  ['q3', 'third quarter'],
  ['q4', 'fourth quarter'],
];

function build(): Map<string, string[]> {
  const map = new Map<string, Set<string>>();
  for (const [head, ...others] of GROUPS) {
    const set = map.get(head) ?? new Set<string>();
    for (const o of others) if (o !== head) set.add(o);
    map.set(head, set);
  }
  return new Map([...map].map(([k, v]) => [k, [...v]]));
}

/** query word → the alternatives it also matches. */
export const SYNONYMS: ReadonlyMap<string, readonly string[]> = build();
