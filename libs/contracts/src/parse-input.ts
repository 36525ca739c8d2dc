// Which parser a stored file version goes to, from the content type the gateway sniffed from its
// bytes at upload (never from the name). Shared by the gateway (credit estimate) and the parse worker.

export type ParseInputKind = 'pdf' | 'image' | 'xlsx' | 'csv';

export function parseInputKind(contentType: string): ParseInputKind | null {
  const ct = contentType.toLowerCase().split(';')[0]!.trim();
  if (ct === 'application/pdf') return 'pdf';
  if (ct.startsWith('image/')) return 'image';
  // application/x-cfb is an OLE container named .xlsx/.xls: a password-protected workbook or a
  // legacy .xls. The spreadsheet parser refuses it with the precise reason.
  if (ct === 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' || ct === 'application/x-cfb')
    return 'xlsx';
  if (ct === 'text/csv' || ct === 'text/tab-separated-values') return 'csv';
  return null;
}

export const isSpreadsheetKind = (k: ParseInputKind): k is 'xlsx' | 'csv' => k === 'xlsx' || k === 'csv';
