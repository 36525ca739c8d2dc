// node-tesseract-ocr ships no types; this covers the one call we make.
declare module 'node-tesseract-ocr' {
  export interface RecognizeConfig {
    lang?: string;
    oem?: number;
    psm?: number;
    dpi?: number;
    binary?: string;
    presets?: string[];
    debug?: boolean;
    [key: string]: unknown;
  }
  export function recognize(input: string | Buffer | string[], config?: RecognizeConfig): Promise<string>;
}
