// Page PNGs and figure/table JPEG crops. PNG encoding dominates page-image cost; zlib level 3
// without adaptive filtering measured ~3x faster than sharp's defaults at ~5% larger files.
import sharp from 'sharp';
import type { RawImage } from './ppm';

export const PNG_OPTIONS = { compressionLevel: 3, adaptiveFiltering: false, palette: false } as const;

const rawInput = (img: RawImage) => sharp(img.data, { raw: { width: img.width, height: img.height, channels: img.channels } });

export async function writePagePng(img: RawImage, file: string): Promise<void> {
  await rawInput(img).png(PNG_OPTIONS).toFile(file);
}

export interface PixelBox { left: number; top: number; width: number; height: number }

export function pixelBoxWithin(box: [number, number, number, number], w: number, h: number, pad = 4): PixelBox | undefined {
  const left = Math.max(0, Math.floor(box[0] - pad));
  const top = Math.max(0, Math.floor(box[1] - pad));
  const right = Math.min(w, Math.ceil(box[2] + pad));
  const bottom = Math.min(h, Math.ceil(box[3] + pad));
  if (right - left < 2 || bottom - top < 2) return undefined;
  return { left, top, width: right - left, height: bottom - top };
}

/** Crops from an in-memory raster (preferred) or from an encoded page image on disk. */
export async function writeCrop(source: RawImage | string, box: PixelBox, file: string): Promise<void> {
  const img = typeof source === 'string' ? sharp(source) : rawInput(source);
  await img.extract(box).jpeg({ quality: 85 }).toFile(file);
}
