// Builds xlsx packages from hand-written sheet XML, for inputs exceljs' writer would not produce.
import { writeZip, type ZipInput } from './zip-writer';

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RNS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

export interface RawSheetInput {
  name: string;
  /** Content of <sheetData>, or a full part via `part`. */
  sheetData?: string;
  /** Full worksheet XML (overrides sheetData). */
  part?: ZipInput['data'];
  /** Extra zip options for the sheet entry (lying sizes, pre-deflated bomb data). */
  entry?: Omit<ZipInput, 'name' | 'data'>;
  after?: string;
}

export function rawXlsxEntries(
  sheets: RawSheetInput[],
  opts: { sharedStrings?: string[]; styles?: string } = {},
): ZipInput[] {
  const entries: ZipInput[] = [
    {
      name: '[Content_Types].xml',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${sheets.map((_, k) => `<Override PartName="/xl/worksheets/sheet${k + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('')}</Types>`,
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RNS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: 'xl/workbook.xml',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><workbook xmlns="${NS}" xmlns:r="${RNS}"><sheets>${sheets.map((s, k) => `<sheet name="${s.name}" sheetId="${k + 1}" r:id="rId${k + 1}"/>`).join('')}</sheets></workbook>`,
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets.map((_, k) => `<Relationship Id="rId${k + 1}" Type="${RNS}/worksheet" Target="worksheets/sheet${k + 1}.xml"/>`).join('')}${opts.sharedStrings ? `<Relationship Id="rIdS" Type="${RNS}/sharedStrings" Target="sharedStrings.xml"/>` : ''}${opts.styles ? `<Relationship Id="rIdT" Type="${RNS}/styles" Target="styles.xml"/>` : ''}</Relationships>`,
    },
  ];
  if (opts.sharedStrings) {
    const items = opts.sharedStrings.map((s) => `<si><t xml:space="preserve">${escapeXml(s)}</t></si>`).join('');
    entries.push({
      name: 'xl/sharedStrings.xml',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst xmlns="${NS}" count="${opts.sharedStrings.length}" uniqueCount="${opts.sharedStrings.length}">${items}</sst>`,
    });
  }
  if (opts.styles) entries.push({ name: 'xl/styles.xml', data: opts.styles });
  sheets.forEach((s, k) => {
    const data =
      s.part ??
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="${NS}" xmlns:r="${RNS}"><sheetData>${s.sheetData ?? ''}</sheetData>${s.after ?? ''}</worksheet>`;
    entries.push({ name: `xl/worksheets/sheet${k + 1}.xml`, data, ...(s.entry ?? {}) });
  });
  return entries;
}

export function writeRawXlsx(
  path: string,
  sheets: RawSheetInput[],
  opts: { sharedStrings?: string[]; styles?: string } = {},
): string {
  return writeZip(path, rawXlsxEntries(sheets, opts));
}

/** styles.xml with style 1 = a fill and border only (what 'formatted empty cells' carry). */
export const STYLED_EMPTY_STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><styleSheet xmlns="${NS}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="3"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill><fill><patternFill patternType="solid"><fgColor rgb="FFFFFF00"/></patternFill></fill></fills><borders count="2"><border/><border><left style="thin"/><right style="thin"/><top style="thin"/><bottom style="thin"/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="0" fillId="2" borderId="1" xfId="0" applyFill="1" applyBorder="1"/></cellXfs></styleSheet>`;

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function colLetters(col: number): string {
  let n = col;
  let out = '';
  while (n > 0) {
    out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}
