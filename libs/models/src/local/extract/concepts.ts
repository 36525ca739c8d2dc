// Built-in knowledge of common fields. A schema field is mapped to a concept by its name and
// description; the concept brings multilingual labels (what the field is called on real invoices
// and contracts) and a fallback finder for values printed without a label. Fields that map to no
// concept still work through label similarity with their own name and description.
import { fold } from '../text/normalize';
import type { SchemaField } from '../../tasks/field-schema';

export type ConceptId =
  | 'invoice_number'
  | 'invoice_date'
  | 'due_date'
  | 'total_amount'
  | 'subtotal'
  | 'tax_amount'
  | 'currency'
  | 'issuer'
  | 'customer'
  | 'order_number'
  | 'customer_number'
  | 'effective_date'
  | 'parties'
  | 'jurisdiction'
  | 'term'
  | 'email'
  | 'phone'
  | 'iban'
  | 'vat_id'
  | 'date'
  | 'address';

export interface Concept {
  id: ConceptId;
  /** Tested against the folded "name description" of the field. */
  field: RegExp;
  /** Label phrases, folded, most specific first. */
  labels: string[];
}

// Order matters: the first concept whose `field` pattern matches wins, so specific ones come first.
export const CONCEPTS: Concept[] = [
  {
    id: 'invoice_number',
    field:
      /\b(invoice|bill|facture|rechnung|factuur)[ _]?(no|nr|num|number|id|#)|\binvoice_?(no|number|num|id)\b|^(invoice|bill)_?(no|number|num|id)/,
    labels: [
      'invoice number',
      'invoice no',
      'invoice #',
      'invoice nr',
      'invoice id',
      'inv no',
      'bill number',
      'bill no',
      'facture n',
      'facture no',
      'numero de facture',
      'n de facture',
      'rechnungsnr',
      'rechnungsnummer',
      'rechnung nr',
      'factuurnummer',
      'factuur nr',
      'invoice',
    ],
  },
  {
    id: 'customer_number',
    field: /(customer|client|account)[ _]?(no|nr|num|number|id)/,
    labels: [
      'customer number',
      'customer no',
      'customer id',
      'client id',
      'client number',
      'account number',
      'account id',
      'account no',
      'klantnummer',
      'kundennr',
      'kundennummer',
      'numero client',
    ],
  },
  {
    id: 'order_number',
    field: /order[ _]?(no|nr|num|number|id)|purchase[ _]order|\bpo\b/,
    labels: [
      'order id',
      'order number',
      'order no',
      'ordernummer',
      'bestellnummer',
      'purchase order',
      'po number',
      'po',
    ],
  },
  {
    id: 'due_date',
    field: /\bdue[ _]?date|date[ _]?due|payment[ _]due|faellig|vervaldatum|echeance/,
    labels: [
      'due date',
      'payment due',
      'date due',
      'zahlungsziel',
      'falligkeitsdatum',
      'vervaldatum',
      'echeance',
      'date d echeance',
    ],
  },
  {
    id: 'effective_date',
    field: /effective|commencement|start[ _]date|agreement[ _]date|contract[ _]date/,
    labels: ['effective date', 'effective as of', 'dated as of', 'commencement date'],
  },
  {
    id: 'invoice_date',
    field: /(invoice|bill|issue|document|factuur|rechnungs)[ _]?(date|datum)|^date$|^date\b|\bdate of (the )?invoice/,
    labels: [
      'invoice date',
      'date of invoice',
      'bill date',
      'issue date',
      'date of issue',
      'rechnungsdatum',
      'factuurdatum',
      'date de facture',
      'date',
      'datum',
    ],
  },
  {
    id: 'vat_id',
    field: /vat[ _]?(id|no|number)|tax[ _]?id|ustid|btw[ _]?nummer|siret|siren/,
    labels: ['vat id', 'vat no', 'vat number', 'ustid', 'ust-idnr', 'btw', 'tax id'],
  },
  {
    id: 'subtotal',
    field: /sub[ _]?total|untaxed|net[ _]amount|amount[ _]untaxed|before[ _]tax/,
    labels: [
      'subtotal',
      'sub total',
      'total ht',
      'exclusief btw',
      'nettobetrag',
      'total excl',
      'net amount',
      'amount untaxed',
    ],
  },
  {
    id: 'tax_amount',
    field: /\b(tax|vat|gst|btw|tva|mwst)\b|tax[ _]amount|amount[ _]tax/,
    labels: ['tax', 'vat', 'gst', 'sales tax', 'tva', 'btw', 'mwst', 'ust'],
  },
  {
    id: 'total_amount',
    field: /total|amount|grand|balance|sum\b|betrag|montant|bedrag/,
    labels: [
      'grand total',
      'total amount due',
      'amount due',
      'amt due',
      'total payable',
      'amount payable',
      'balance due',
      'total due',
      'total ttc',
      'total to pay',
      'totaal',
      'gesamtbetrag',
      'rechnungsbetrag',
      'montant ttc',
      'total for this invoice',
      'total',
      'amount',
    ],
  },
  { id: 'currency', field: /currenc|wahrung|devise|valuta/, labels: ['currency', 'wahrung', 'devise', 'valuta'] },
  {
    id: 'issuer',
    field:
      /issuer|vendor|seller|supplier|merchant|provider|company|biller|\bfrom\b|lieferant|verkaufer|leverancier|fournisseur/,
    labels: [
      'issuer',
      'vendor',
      'seller',
      'supplier',
      'sold by',
      'service provider',
      'payee',
      'account holder',
      'titulaire du compte',
      'kontoinhaber',
      'merchant',
      'lieferant',
      'leverancier',
      'fournisseur',
      'from',
    ],
  },
  {
    id: 'customer',
    field: /customer|client|buyer|bill[ _]?to|recipient|purchaser|kunde|klant/,
    labels: ['bill to', 'billed to', 'customer', 'client', 'buyer', 'sold to', 'ship to', 'kunde', 'klant'],
  },
  { id: 'parties', field: /part(y|ies)\b|signator|counterpart|contracting/, labels: ['parties', 'party', 'between'] },
  {
    id: 'jurisdiction',
    field: /jurisdiction|governing|applicable[ _]law|venue|choice[ _]of[ _]law/,
    labels: ['governing law', 'jurisdiction', 'applicable law'],
  },
  { id: 'term', field: /\bterm\b|duration|period|length/, labels: ['term', 'duration'] },
  {
    id: 'address',
    field: /address|adresse|anschrift|direcci|indirizzo|\badres\b|endereco|location of/,
    labels: ['address', 'adresse', 'anschrift', 'direccion', 'indirizzo', 'adres'],
  },
  { id: 'email', field: /e-?mail/, labels: ['email', 'e-mail', 'mail'] },
  { id: 'phone', field: /phone|tel\b|telephone|mobile|fax/, labels: ['phone', 'telephone', 'tel', 'mobile'] },
  { id: 'iban', field: /iban|bank[ _]account/, labels: ['iban', 'bank account'] },
  { id: 'date', field: /date|datum/, labels: ['date', 'datum', 'dated'] },
];

export function conceptOf(field: SchemaField): Concept | undefined {
  const text = fold(`${field.name.replace(/_/g, ' ')} ${field.description ?? ''}`).trim();
  const name = fold(field.name.replace(/_/g, ' '));
  // The name decides first (a "date" field described as "date the invoice was issued" is a date,
  // not an issuer); the description only breaks ties when the name says nothing known.
  return CONCEPTS.find((c) => c.field.test(name)) ?? CONCEPTS.find((c) => c.field.test(text));
}
