// Image inputs (PNG, JPEG, TIFF, WebP, GIF...) normalised with sharp: EXIF orientation applied,
// alpha flattened onto white, 8-bit sRGB. Multi-page TIFF/GIF pages become document pages.
import sharp, { type Metadata } from 'sharp';
import { ParseError } from '../parse-error';
import type { RawImage } from './ppm';

export interface ImagePage extends RawImage {
  /** Pixels per inch from the file, or 300 when the file does not say (typical scan). */
  density: number;
  /**
   * The file states its resolution (a unit is given, or a value other than the 72 every decoder
   * reports when there is none). Only a stated resolution is handed to Tesseract.
   */
  densityStated?: boolean;
}

/** A page already decoded by loadImagePage (inspectDocument's `keepImage`), handed to parsePages. */
export interface DecodedImage {
  path: string;
  /** 0-based frame. */
  pageIndex: number;
  image: ImagePage;
}

function imageError(err: unknown): ParseError {
  return new ParseError(
    'unsupported_image',
    `The image could not be decoded: ${(err as Error)?.message ?? String(err)}`,
    { cause: err },
  );
}

export async function imagePageCount(path: string): Promise<number> {
  try {
    const meta = await sharp(path, { pages: 1 }).metadata();
    if (!meta.width || !meta.height) throw new Error('no image dimensions');
    return Math.max(1, meta.pages ?? 1);
  } catch (err) {
    throw imageError(err);
  }
}

export async function loadImagePage(path: string, index: number): Promise<ImagePage> {
  try {
    const img = sharp(path, { page: index, pages: 1 });
    const meta = await img.metadata();
    const { data, info } = await img
      .rotate()
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const { density, densityStated } = densityOf(meta);
    return {
      width: info.width,
      height: info.height,
      channels: info.channels === 1 ? 1 : 3,
      data,
      density,
      densityStated,
    };
  } catch (err) {
    throw imageError(err);
  }
}

/** Pixels per inch from the file's metadata (300 when it says nothing usable), and whether the file states it. */
export function densityOf(meta: Metadata): { density: number; densityStated: boolean } {
  const density = meta.density && meta.density >= 50 && meta.density <= 1200 ? meta.density : 300;
  return {
    density,
    densityStated: density === meta.density && (meta.resolutionUnit !== undefined || meta.density !== 72),
  };
}

/**
 * The resolution handed to Tesseract for an image: the one the file states, when it is at least
 * 150 (lower values are screen defaults, not the scan's); undefined leaves it to Tesseract's estimate.
 */
export function statedOcrDpi(img: { density: number; densityStated?: boolean }): number | undefined {
  return img.densityStated && img.density >= 150 ? img.density : undefined;
}

/** Greyscale PGM bytes for Tesseract (uncompressed: no encode cost, Tesseract reads it directly). */
export async function toPgm(img: RawImage, scale = 1): Promise<Buffer> {
  let pipeline = sharp(img.data, { raw: { width: img.width, height: img.height, channels: img.channels } }).greyscale();
  const width = Math.round(img.width * scale),
    height = Math.round(img.height * scale);
  if (scale !== 1) pipeline = pipeline.resize(width, height, { kernel: 'lanczos3' });
  const gray = await pipeline.raw().toBuffer();
  return Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1'), gray.subarray(0, width * height)]);
}
