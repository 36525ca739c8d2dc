// Decides from the bytes whether a file named .xlsx can be opened as one, and opens it guarded.
import { SheetParseError } from './errors';
import type { SheetLimits } from './limits';
import { inspectCompoundFile, readHead, signatureOf } from './sniff';
import { GuardedZip } from './zip-archive';

export async function openXlsxZip(path: string, limits: SheetLimits): Promise<GuardedZip> {
  const head = await readHead(path, 512);
  const sig = signatureOf(head);
  if (sig === 'cfb') {
    const { encrypted, legacyXls } = await inspectCompoundFile(path);
    if (encrypted) {
      throw new SheetParseError(
        'password_protected',
        'the workbook is password-protected (an encrypted OOXML package in an OLE container); remove the password and upload it again',
      );
    }
    if (legacyXls) {
      throw new SheetParseError(
        'unsupported_format',
        'this is a legacy Excel 97-2003 (.xls) workbook; save it as .xlsx',
      );
    }
    throw new SheetParseError('not_a_spreadsheet', 'the file is an OLE compound document without a workbook');
  }
  if (sig !== 'zip')
    throw new SheetParseError('not_a_spreadsheet', `the file is not an xlsx workbook (${describe(head)})`);
  return GuardedZip.open(path, limits);
}

function describe(head: Buffer): string {
  if (head.length === 0) return 'it is empty';
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') return 'it is a PDF';
  const text = head.toString('utf8');
  if (/^\s*</.test(text)) return 'it is an XML/HTML text file';
  if (!text.includes('\uFFFD') && !/[\0-\x08\x0e-\x1f]/.test(text)) return 'it is a text file';
  return 'unrecognised binary content, no zip signature';
}
