// Phase 'figures' for one page: crops of figures and tables to imgs/ (from the page raster when the
// caller still holds it, as OCR pages and image inputs do, else from the page image when one was
// rendered, else from a one-page raster), then the grounding page and its markdown. OCR pages run
// this right after their layout, while their raster is in memory.
import path from 'node:path';
import { joinBlockBreakHyphens } from '../assemble/page-break-hyphen';
import { isParseError } from '../parse-error';
import type { CropRasters } from '../render/crop-rasters';
import { loadImagePage } from '../render/image-input';
import { pixelBoxWithin, writeCrop } from '../render/page-image';
import type { RenderedPage } from '../render/page-renderer';
import type { RawImage } from '../render/ppm';
import type { LayoutElement } from '../types';
import { buildGroundingPage, cropName, pixelBox, type PageGeometry } from './grounding-builder';
import type { LaidOutPage, ParsedPage } from './parse-types';

export interface FinishContext {
  pdfPath?: string;
  imagePath?: string;
  imageDensity?: number;
  dpi: number;
  outDir: string;
  tmp: string;
  rendered?: RenderedPage;
  /** The page at `dpi` in memory (OCR raster downscaled, or the image input): crops come from it. */
  raster?: RawImage;
  /** Background rasters for crops when no page image was rendered (PDF only). */
  cropRasters?: CropRasters;
  timeoutMs: number;
}

const CROPPED = new Set(['figure', 'table']);

export async function finishPage(page: LaidOutPage, ctx: FinishContext): Promise<ParsedPage> {
  const n = page.pageNumber;
  const g: PageGeometry = {
    pageNumber: n,
    widthPt: page.widthPt,
    heightPt: page.heightPt,
    dpi: ctx.dpi,
    // pdftoppm rounds page pixels up; match it when the page was not rendered.
    widthPx: ctx.rendered?.width ?? Math.ceil((page.widthPt * ctx.dpi) / 72 - 1e-6),
    heightPx: ctx.rendered?.height ?? Math.ceil((page.heightPt * ctx.dpi) / 72 - 1e-6),
  };
  const names = new Map<LayoutElement, string>();
  const counters: Record<string, number> = {};
  for (const el of page.elements) {
    if (!CROPPED.has(el.type)) continue;
    counters[el.type] = (counters[el.type] ?? 0) + 1;
    names.set(el, cropName(n, el.type, counters[el.type]!));
  }
  const files: string[] = ctx.rendered ? [ctx.rendered.relPath] : [];
  const source = names.size ? (ctx.raster ?? ctx.rendered?.file ?? (await rasterFor(page, ctx))) : undefined;
  if (!source) names.clear();
  if (source && names.size) {
    const [w, h] =
      typeof source === 'string'
        ? [g.widthPx, g.heightPx]
        : [Math.min(g.widthPx, source.width), Math.min(g.heightPx, source.height)];
    for (const [el, name] of names) {
      const box = pixelBoxWithin(pixelBox(el, g), w, h);
      if (!box) {
        names.delete(el);
        continue;
      }
      await writeCrop(source, box, path.join(ctx.outDir, 'imgs', name));
      files.push(`imgs/${name}`);
    }
  }
  // Words hyphenated across the page's blocks (column to column, past a figure) are joined here;
  // across the page break, where the document is assembled.
  const built = buildGroundingPage(g, page.elements, (el) => {
    const name = names.get(el);
    return name ? `imgs/${name}` : undefined;
  });
  const { grounding, markdown } = joinBlockBreakHyphens({ grounding: built.page, markdown: built.markdown });
  return {
    pageNumber: n,
    grounding,
    markdown,
    files,
    source: page.source,
    ...(page.textLayer ? { textLayer: page.textLayer } : {}),
    ...(page.ocrLanguage ? { ocrLanguage: page.ocrLanguage } : {}),
  };
}

/** A raster for the crops, or none: no source given, or the page's raster is over the page budget (no crops then). */
async function rasterFor(page: LaidOutPage, ctx: FinishContext): Promise<RawImage | undefined> {
  if (ctx.imagePath) return loadImagePage(ctx.imagePath, page.pageNumber - 1);
  if (!ctx.cropRasters) return undefined;
  try {
    return await ctx.cropRasters.take(page.pageNumber);
  } catch (err) {
    if (isParseError(err) && err.code === 'page_too_complex') return undefined;
    throw err;
  }
}
