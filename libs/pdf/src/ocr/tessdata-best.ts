// Tesseract's larger English model (tessdata_best, integer-quantised), for reading small things
// again where the fast model the system ships reads them badly: a scanned table's cells whose
// letters are 5-7 px tall (cell-reread.ts). It comes from the npm package @tesseract.js-data/eng
// (the `4.0.0_best_int` model, gzipped) and is unpacked once per machine and user into a directory
// of its own under the temp dir, beside the one config file the TSV runs name (`configs/tsv`).
// The temp dir is shared with every user of the machine: the directory is only trusted when it is
// a real directory (not a link) of this user that no one else can write to; otherwise the model is
// unpacked into a scratch folder of this process (removed with it, scratch.ts).
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { makeScratchDir } from '../parse/scratch';

const MODEL = '4.0.0_best_int/eng.traineddata.gz';
const NAME = 'tessdata-best-int-1.0.0';
const SAFE_PATH = /^[A-Za-z0-9_./-]+$/;

let unpacked: Promise<string | undefined> | undefined;

/**
 * The --tessdata-dir of the best English model, or undefined when the language is not English or
 * the package is not installed (the caller then reads with the system's model).
 */
export function bestModelDir(lang: string): Promise<string | undefined> {
  if (lang !== 'eng') return Promise.resolve(undefined);
  unpacked ??= unpack().catch(() => undefined);
  return unpacked;
}

/** The shared directory of this user under `tmp`, made if missing; undefined when it cannot be trusted. */
export async function ownModelDir(tmp = os.tmpdir()): Promise<string | undefined> {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const dir = path.join(tmp, `docfleet-${uid}-${NAME}`);
  await fs.mkdir(dir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  const st = await fs.lstat(dir);
  const trusted = st.isDirectory() && !st.isSymbolicLink() && st.uid === uid && (st.mode & 0o022) === 0;
  return trusted ? dir : undefined;
}

async function unpack(): Promise<string | undefined> {
  let gz: string;
  try {
    gz = createRequire(__filename).resolve(`@tesseract.js-data/eng/${MODEL}`);
  } catch {
    return undefined;
  }
  const dir = (await ownModelDir().catch(() => undefined)) ?? (await makeScratchDir('ocr'));
  // Tesseract is only handed directories of plain path characters (tesseract-tsv.ts assertSafePath).
  if (!SAFE_PATH.test(dir)) return undefined;
  const model = path.join(dir, 'eng.traineddata');
  const config = path.join(dir, 'configs', 'tsv');
  const ready = await Promise.all([fs.stat(model), fs.stat(config)]).then(
    () => true,
    () => false,
  );
  if (ready) return dir;
  await fs.mkdir(path.dirname(config), { recursive: true });
  // Written under a name of this process's own and renamed: a process that finds the file finds it whole.
  const tmp = `${model}.${process.pid}.tmp`;
  await fs.writeFile(tmp, await promisify(gunzip)(await fs.readFile(gz)));
  await fs.rename(tmp, model);
  await fs.writeFile(`${config}.${process.pid}.tmp`, 'tessedit_create_tsv 1\n');
  await fs.rename(`${config}.${process.pid}.tmp`, config);
  return dir;
}
