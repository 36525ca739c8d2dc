// Tesseract's larger English model (tessdata_best, integer-quantised), for reading small things
// again where the fast model the system ships reads them badly: a scanned table's cells whose
// letters are 5-7 px tall (cell-reread.ts). It comes from the npm package @tesseract.js-data/eng
// (the `4.0.0_best_int` model, gzipped) and is unpacked once per machine into a directory of its
// own under the temp dir, beside the one config file the TSV runs name (`configs/tsv`).
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

const MODEL = '4.0.0_best_int/eng.traineddata.gz';
const DIR = path.join(os.tmpdir(), 'docfleet-tessdata-best-int-1.0.0');

let unpacked: Promise<string | undefined> | undefined;

/**
 * The --tessdata-dir of the best English model, or undefined when the language is not English or
 * the package is not installed (the caller then reads with the system's model).
 */
export function bestModelDir(lang: string): Promise<string | undefined> {
  // Tesseract is only handed directories of plain path characters (tesseract-tsv.ts assertSafePath).
  if (lang !== 'eng' || !/^[A-Za-z0-9_./-]+$/.test(DIR)) return Promise.resolve(undefined);
  unpacked ??= unpack().catch(() => undefined);
  return unpacked;
}

async function unpack(): Promise<string | undefined> {
  let gz: string;
  try {
    gz = createRequire(__filename).resolve(`@tesseract.js-data/eng/${MODEL}`);
  } catch {
    return undefined;
  }
  const model = path.join(DIR, 'eng.traineddata');
  const config = path.join(DIR, 'configs', 'tsv');
  const ready = await Promise.all([fs.stat(model), fs.stat(config)]).then(
    () => true,
    () => false,
  );
  if (ready) return DIR;
  await fs.mkdir(path.dirname(config), { recursive: true });
  // Written under a name of this process's own and renamed: a process that finds the file finds it whole.
  const tmp = `${model}.${process.pid}.tmp`;
  await fs.writeFile(tmp, await promisify(gunzip)(await fs.readFile(gz)));
  await fs.rename(tmp, model);
  await fs.writeFile(`${config}.${process.pid}.tmp`, 'tessedit_create_tsv 1\n');
  await fs.rename(`${config}.${process.pid}.tmp`, config);
  return DIR;
}
