// Built-in vocabulary for common document classes. A caller's class is matched to a built-in
// profile by its name (or an alias), so "invoice", "invoices" and "bill" all get invoice terms, and
// "contract_nda" gets contract plus NDA terms. Weights say how specific a term is to the class.
// Tokens starting with "__" are structural features computed from the evidence (see features.ts).
export interface BuiltinProfile {
  key: string;
  aliases: string[];
  description: string;
  terms: Record<string, number>;
  /** Structural features the class cannot do without (an image class needs an image input). */
  requires?: string[];
}

const t = (spec: string, w: number) =>
  Object.fromEntries(
    spec
      .split(',')
      .map((s) => [s.trim(), w])
      .filter(([s]) => s),
  );

export const BUILTIN_PROFILES: BuiltinProfile[] = [
  {
    key: 'invoice',
    aliases: ['invoice', 'invoices', 'bill', 'bills', 'factuur', 'rechnung', 'facture', 'billing'],
    description: 'A bill from a seller listing goods or services, amounts, taxes and a total due.',
    terms: {
      ...t(
        'invoice,factuur,rechnung,facture,rechnungsnr,factuurnummer,invoice number,invoice date,amount due,total due,balance due,grand total,bill to,sold by',
        3,
      ),
      ...t(
        'subtotal,vat,tax,btw,tva,mwst,qty,quantity,unit price,price,total,payment,due date,iban,bic,order,customer,totaal,montant,betrag,__money',
        1,
      ),
      // Who is billed, when it is due, on what terms: what a shop's receipt does not print.
      ...t('__billing', 4),
    },
  },
  {
    key: 'receipt',
    aliases: ['receipt', 'receipts', 'sales_receipt'],
    description: 'A proof of payment from a shop or service, usually short.',
    terms: {
      ...t('receipt,cash,change due,tendered,thank you for shopping,cashier,store,pos', 3),
      ...t('subtotal,total,tax,card,visa,change,rounding,thank you,come again,__money,__short', 1),
      // Narrow print with a total, item amounts and the payment at the till: the layout of a slip.
      ...t('__receipt_layout', 5),
      ...t('__till_payment', 2),
    },
  },
  {
    key: 'contract_nda',
    aliases: ['nda', 'ndas', 'non_disclosure_agreement', 'confidentiality_agreement', 'contract_nda'],
    description: 'A non-disclosure or confidentiality agreement between parties.',
    terms: {
      ...t(
        'confidential information,non-disclosure,nondisclosure,confidentiality agreement,disclosing party,receiving party,evaluation material,proprietary information,recipient',
        3,
      ),
      ...t(
        'agreement,confidential,confidentiality,party,parties,shall,hereto,hereof,governed by,laws of the state,term,terminate,representatives,disclose,disclosure,obligations,whereas',
        1,
      ),
    },
  },
  {
    key: 'contract',
    aliases: ['contract', 'contracts', 'agreement', 'agreements', 'legal_agreement'],
    description: 'A legal agreement between parties with obligations, term and governing law.',
    terms: {
      ...t('agreement,hereby,hereto,hereof,whereas,governed by,indemnify,liability,terminate,in witness whereof', 2),
      ...t('party,parties,shall,term,obligations,laws of the state,breach', 1),
    },
  },
  {
    key: 'scientific_paper',
    aliases: ['scientific_paper', 'paper', 'research_paper', 'article', 'academic_paper', 'scientific_article'],
    description: 'A research paper with abstract, method, experiments and references.',
    terms: {
      ...t(
        'abstract,related work,experiments,et al,arxiv,state of the art,we propose,in this paper,conclusion,references,dataset,benchmark',
        3,
      ),
      ...t(
        'method,results,evaluation,model,accuracy,table,figure,approach,proposed,training,performance,section,experiment,architecture,trained,inference,score,parameter,__citations',
        1,
      ),
      ...t('__references', 4),
    },
    // Research papers cite: a reference list or numbered citations.
    requires: ['__scholarly'],
  },
  {
    key: 'textbook',
    aliases: ['textbook', 'textbooks', 'book', 'books', 'lecture_notes', 'course_notes'],
    description: 'A long teaching text in chapters with definitions, theorems, examples and exercises.',
    terms: {
      ...t('chapter,theorem,lemma,proof,corollary,definition,proposition,exercise,exercises,__long', 3),
      ...t('example,section,remark,solution,contents,index,introduction', 1),
    },
    requires: ['__long'],
  },
  {
    key: 'technical_manual',
    aliases: ['technical_manual', 'manual', 'guide', 'user_guide', 'documentation', 'handbook', 'redbook'],
    description: 'A technical manual or guide with chapters, procedures and commands.',
    terms: {
      ...t('chapter,redbooks,redpaper,ibm,preface,contents,appendix,command,configuration,administrator', 3),
      ...t(
        'section,figure,table,user,system,database,sql,security,install,function,example,following,access,server',
        1,
      ),
    },
  },
  {
    key: 'bank_statement',
    aliases: ['bank_statement', 'statement', 'account_statement', 'bank_statements'],
    description: 'A bank account statement listing transactions and balances.',
    terms: {
      ...t(
        'statement,opening balance,closing balance,balance,deposit,deposits,withdrawal,withdrawals,transaction,account number,beginning balance,ending balance',
        3,
      ),
      ...t('account,debit,credit,date,description,amount,bank,interest,__money', 1),
    },
  },
  {
    key: 'financial_statement',
    aliases: ['financial_statement', 'financial_report', 'balance_sheet', 'annual_report'],
    description: 'Financial statements: balance sheet, income statement, assets, liabilities.',
    terms: {
      ...t(
        'assets,liabilities,equity,revenue,net income,balance sheet,income statement,fiscal,consolidated,cash flow,連結,決算,純資産,株主資本,貸借対照表,損益計算書,bilanz,bilan',
        3,
      ),
      ...t('total,million,year,quarter,dividend,shareholders,利益,資本,配当,__table,__numeric', 1),
    },
  },
  {
    key: 'spreadsheet',
    aliases: ['spreadsheet', 'spreadsheets', 'workbook', 'sheet', 'excel', 'csv'],
    description: 'A spreadsheet or workbook of tabular data.',
    terms: { ...t('__spreadsheet', 8), ...t('sheet,__table', 1) },
    requires: ['__spreadsheet'],
  },
  {
    key: 'tabular_report',
    aliases: ['tabular_report', 'table_report', 'data_report', 'listing'],
    description: 'A report that is mostly one long table of records.',
    terms: {
      ...t('__table_heavy,projected,scenario,by type', 3),
      ...t('report,name,address,city,state,zip,total,amount,date,count,average,__table,__numeric', 1),
    },
  },
  {
    key: 'government_report_with_tables',
    aliases: ['government_report_with_tables', 'government_report', 'statistical_report', 'public_report'],
    description: 'A government or statistical publication with data tables.',
    terms: {
      ...t(
        'department,government,federal,national,statistics,census,bureau,ministry,commission,public,percent,population,member states,european union,federal reserve,exhibit,policy,agency',
        3,
      ),
      ...t(
        'table,total,year,state,states,sector,region,community,institution,assessment,districts,note,__table,__numeric,source',
        1,
      ),
      ...t('__source_notes,__captioned_table,__prose_with_tables,__titled_tables,__running_header', 2),
    },
  },
  {
    key: 'form',
    aliases: ['form', 'forms', 'application_form', 'questionnaire'],
    description: 'A form with fields to fill in and sign.',
    terms: {
      ...t('form,please complete,applicant,signature,date of birth,checkbox,fill in,print name', 3),
      ...t('name,address,date,phone,email', 1),
    },
  },
  {
    key: 'report',
    aliases: ['report', 'reports', 'business_report'],
    description: 'A narrative report with summary, findings and recommendations.',
    terms: {
      ...t('report,executive summary,findings,recommendations,summary', 3),
      ...t('analysis,period,results,overview', 1),
    },
  },
  {
    key: 'ocr_text_sample',
    aliases: ['ocr_text_sample', 'scanned_text', 'scan'],
    description: 'An image of plain text, read by OCR.',
    // An image, and running text on it: a photographed receipt or table is an image too.
    terms: { ...t('__image', 2), ...t('__prose', 4), ...t('ocr,text,__short', 1) },
    requires: ['__image'],
  },
  {
    key: 'generic_text_sample',
    aliases: ['generic_text_sample', 'text_sample', 'sample_text', 'generic'],
    description: 'A short sample of generic text, code or formulas.',
    terms: {
      ...t('__short', 2),
      ...t(
        'code,formula,function,example,sample,text,document,docling,package,python,equation,listing,lorem ipsum,javascript',
        1,
      ),
    },
  },
  {
    key: 'scientific_table_image',
    aliases: ['scientific_table_image', 'table_image'],
    description: 'An image of a single table cropped from a scientific article.',
    terms: {
      ...t('__image', 3),
      ...t('__grid', 2),
      ...t('__table,__numeric,p value,ci,mean,sd,patients,group,ratio,%', 1),
    },
    requires: ['__image'],
  },
];

export function builtinFor(name: string): BuiltinProfile | undefined {
  const n = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
  return (
    BUILTIN_PROFILES.find((p) => p.key === n || p.aliases.includes(n)) ??
    BUILTIN_PROFILES.find((p) => p.aliases.some((a) => n.split('_').includes(a)))
  );
}
