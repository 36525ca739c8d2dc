import { readFile } from 'node:fs/promises';
import { usage } from './context';

/** Reads a JSON file named on the command line; a missing or malformed file is a usage error. */
export async function readJsonFile(file: string, flag: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    usage(
      `--${flag} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    usage(`--${flag} ${file}: not valid JSON (${(err as Error).message})`);
  }
}
