// Zip access for xlsx through yauzl, which reads the central directory first. All size and ratio
// checks run on the central directory before a single byte is inflated, and yauzl then refuses any
// entry whose inflated stream outgrows its declared size, so a lying header cannot slip past them.
import { Transform, type Readable } from 'node:stream';
import { stat } from 'node:fs/promises';
import yauzl from 'yauzl';
import { SheetParseError } from './errors';
import type { SheetLimits } from './limits';

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
}

export class GuardedZip {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly entries: Map<string, yauzl.Entry>,
    readonly totalUncompressed: number,
  ) {}

  static async open(path: string, limits: SheetLimits): Promise<GuardedZip> {
    const fileSize = (await stat(path)).size;
    let zip: yauzl.ZipFile;
    try {
      zip = await yauzl.openPromise(path, {
        autoClose: false,
        lazyEntries: true,
        validateEntrySizes: true,
        strictFileNames: false,
      });
    } catch (err) {
      throw new SheetParseError(
        'corrupt_spreadsheet',
        `the file starts like a zip archive but its central directory is unreadable (${(err as Error).message})`,
        {},
        { cause: err },
      );
    }
    try {
      if (zip.entryCount > limits.maxZipEntries) {
        throw new SheetParseError(
          'zip_bomb',
          `archive lists ${zip.entryCount} entries, limit ${limits.maxZipEntries}`,
          { entryCount: zip.entryCount },
        );
      }
      const entries = new Map<string, yauzl.Entry>();
      let total = 0;
      let compressedTotal = 0;
      for await (const entry of iterateEntries(zip)) {
        const { uncompressedSize: u, compressedSize: c, fileName } = entry;
        if (entry.isEncrypted()) {
          throw new SheetParseError('password_protected', `zip entry ${fileName} is encrypted`, { entry: fileName });
        }
        if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
          throw new SheetParseError(
            'corrupt_spreadsheet',
            `zip entry ${fileName} uses compression method ${entry.compressionMethod}, which xlsx never uses`,
            { entry: fileName },
          );
        }
        total += u;
        compressedTotal += c;
        if (total > limits.maxUncompressedBytes) {
          throw new SheetParseError(
            'zip_bomb',
            `archive inflates to more than ${limits.maxUncompressedBytes} bytes (limit); refused before inflating`,
            { uncompressedBytes: total, limit: limits.maxUncompressedBytes },
          );
        }
        if (u > limits.ratioFloorBytes && u / Math.max(c, 1) > limits.maxCompressionRatio) {
          throw new SheetParseError(
            'zip_bomb',
            `zip entry ${fileName} would inflate ${Math.round(u / Math.max(c, 1))}x (${c} -> ${u} bytes), limit ${limits.maxCompressionRatio}x`,
            { entry: fileName, compressedSize: c, uncompressedSize: u },
          );
        }
        entries.set(fileName, entry);
      }
      // Entries whose data ranges overlap (the "non-recursive" zip bomb) claim more compressed bytes
      // than the file holds.
      if (compressedTotal > fileSize) {
        throw new SheetParseError(
          'zip_bomb',
          `entries claim ${compressedTotal} compressed bytes in a ${fileSize}-byte file (overlapping entries)`,
          { compressedTotal, fileSize },
        );
      }
      return new GuardedZip(zip, entries, total);
    } catch (err) {
      zip.close();
      if (err instanceof SheetParseError) throw err;
      throw new SheetParseError(
        'corrupt_spreadsheet',
        `zip central directory is damaged (${(err as Error).message})`,
        {},
        { cause: err },
      );
    }
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  info(name: string): ZipEntryInfo | undefined {
    const e = this.entries.get(name);
    return e && { name, compressedSize: e.compressedSize, uncompressedSize: e.uncompressedSize };
  }

  /**
   * Inflated bytes of one part. Inflating past the size the central directory declared is a zip bomb
   * with a lying header: yauzl notices it and so does the counter here; either way the stream fails
   * with code 'zip_bomb' as soon as the first extra byte arrives.
   */
  async stream(name: string): Promise<Readable> {
    const entry = this.entries.get(name);
    if (!entry) throw new SheetParseError('corrupt_spreadsheet', `missing part ${name}`);
    let raw: Readable;
    try {
      raw = await this.zip.openReadStreamPromise(entry);
    } catch (err) {
      throw new SheetParseError(
        'corrupt_spreadsheet',
        `cannot read part ${name} (${(err as Error).message})`,
        { entry: name },
        { cause: err },
      );
    }
    const declared = entry.uncompressedSize;
    let seen = 0;
    const guard = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        seen += chunk.length;
        if (seen > declared) cb(lyingSizeError(name, declared));
        else cb(null, chunk);
      },
    });
    raw.on('error', (err) =>
      guard.destroy(
        /too many bytes/i.test(err.message)
          ? lyingSizeError(name, declared)
          : new SheetParseError(
              'corrupt_spreadsheet',
              `cannot inflate part ${name} (${err.message})`,
              { entry: name },
              { cause: err },
            ),
      ),
    );
    guard.on('close', () => {
      if (!raw.destroyed) raw.destroy();
    });
    return raw.pipe(guard);
  }

  /** Whole small part as text (relationships, workbook.xml). */
  async text(name: string, maxBytes = 16 * 1024 * 1024): Promise<string> {
    const info = this.info(name);
    if (!info) throw new SheetParseError('corrupt_spreadsheet', `missing part ${name}`);
    if (info.uncompressedSize > maxBytes) {
      throw new SheetParseError(
        'corrupt_spreadsheet',
        `part ${name} is ${info.uncompressedSize} bytes, more than the ${maxBytes} expected`,
        { entry: name },
      );
    }
    const chunks: Buffer[] = [];
    const stream = await this.stream(name);
    try {
      for await (const chunk of stream) chunks.push(chunk as Buffer);
    } catch (err) {
      throw new SheetParseError(
        'corrupt_spreadsheet',
        `cannot inflate part ${name} (${(err as Error).message})`,
        { entry: name },
        { cause: err },
      );
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  close(): void {
    if (this.zip.isOpen) this.zip.close();
  }
}

function lyingSizeError(name: string, declared: number): SheetParseError {
  return new SheetParseError(
    'zip_bomb',
    `zip entry ${name} inflates past its declared ${declared} bytes (lying header); stopped`,
    { entry: name, declared },
  );
}

async function* iterateEntries(zip: yauzl.ZipFile): AsyncGenerator<yauzl.Entry> {
  for (;;) {
    const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
      const onEntry = (e: yauzl.Entry) => {
        cleanup();
        resolve(e);
      };
      const onEnd = () => {
        cleanup();
        resolve(null);
      };
      const onError = (err: Error) => {
        cleanup();
        reject(err);
      };
      const cleanup = () => {
        zip.off('entry', onEntry);
        zip.off('end', onEnd);
        zip.off('error', onError);
      };
      zip.on('entry', onEntry);
      zip.on('end', onEnd);
      zip.on('error', onError);
      zip.readEntry();
    });
    if (!entry) return;
    // Directories carry no data.
    if (!entry.fileName.endsWith('/')) yield entry;
  }
}
