// Generated right-to-left PDFs: lines drawn in visual order, as one string (Word) or glyph by glyph (MuPDF).
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';

/**
 * A PDF whose lines are drawn in visual order with a simple font whose ToUnicode maps one byte per
 * glyph to the given characters (what a producer that shapes text writes: presentation forms,
 * mirrored brackets), each line ending at x = 500.
 */
export async function visualPdf(lines: Array<{ visual: string; y: number; perGlyph: boolean }>): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const helvetica = await doc.embedFont(StandardFonts.Helvetica);
  const codes = new Map<string, number>([[' ', 0x20]]);
  for (const l of lines) for (const c of l.visual) if (!codes.has(c)) codes.set(c, 0x41 + codes.size - 1);
  const hex = (n: number, w: number) => n.toString(16).toUpperCase().padStart(w, '0');
  const bf = [...codes].map(
    ([c, code]) => `<${hex(code, 2)}> <${[...c].map((u) => hex(u.codePointAt(0)!, 4)).join('')}>`,
  );
  const cmap = [
    '/CIDInit /ProcSet findresource begin 12 dict begin begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def /CMapType 2 def',
    '1 begincodespacerange <00> <FF> endcodespacerange',
    `${bf.length} beginbfchar`,
    ...bf,
    'endbfchar endcmap CMapName currentdict /CMap defineresource pop end end',
  ].join('\n');
  const toUnicode = doc.context.register(doc.context.stream(cmap));
  const font = doc.context.register(
    doc.context.obj({
      Type: 'Font',
      Subtype: 'Type1',
      BaseFont: 'Helvetica',
      Encoding: 'WinAnsiEncoding',
      ToUnicode: toUnicode,
    }),
  );
  page.node.setFontDictionary(PDFName.of('F1'), font);
  const size = 10;
  const width = (code: number) => helvetica.widthOfTextAtSize(String.fromCharCode(code), size);
  const ops: string[] = [];
  for (const l of lines) {
    const glyphs = [...l.visual].map((c) => codes.get(c)!);
    const total = glyphs.reduce((s, g) => s + width(g), 0);
    if (!l.perGlyph) {
      ops.push(`BT /F1 ${size} Tf 1 0 0 1 ${500 - total} ${l.y} Tm <${glyphs.map((g) => hex(g, 2)).join('')}> Tj ET`);
      continue;
    }
    let x = 500;
    for (const g of [...glyphs].reverse()) {
      x -= width(g);
      ops.push(`BT /F1 ${size} Tf 1 0 0 1 ${x.toFixed(2)} ${l.y} Tm <${hex(g, 2)}> Tj ET`);
    }
  }
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.stream(ops.join('\n'))));
  return doc.save({ useObjectStreams: false });
}
