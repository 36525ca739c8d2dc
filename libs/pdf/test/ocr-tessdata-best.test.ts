// The best English model is unpacked once per user into the shared temp dir; that directory is
// only used when it is a real directory of this user that no one else can write to.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bestModelDir, ownModelDir } from '../src/ocr/tessdata-best';

const uid = process.getuid?.() ?? -1;
let tmp: string;

beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'docfleet-tessdata-test-'));
});
afterEach(() => fs.rm(tmp, { recursive: true, force: true }));

const ownDir = () => path.join(tmp, `docfleet-${uid}-tessdata-best-int-1.0.0`);

describe('ownModelDir', () => {
  it('makes a directory of this user that only this user can enter', async () => {
    const dir = await ownModelDir(tmp);
    expect(dir).toBe(ownDir());
    const st = await fs.lstat(ownDir());
    expect(st.isDirectory()).toBe(true);
    expect(st.mode & 0o077).toBe(0);
    // Found again as it is.
    expect(await ownModelDir(tmp)).toBe(dir);
  });

  it('does not trust a directory others can write to', async () => {
    await fs.mkdir(ownDir());
    await fs.chmod(ownDir(), 0o777);
    expect(await ownModelDir(tmp)).toBeUndefined();
  });

  it('does not follow a link planted under its name', async () => {
    const elsewhere = path.join(tmp, 'elsewhere');
    await fs.mkdir(elsewhere, { mode: 0o700 });
    await fs.symlink(elsewhere, ownDir());
    expect(await ownModelDir(tmp)).toBeUndefined();
  });
});

describe('bestModelDir', () => {
  it('unpacks the English model into a private directory the caller can hand to tesseract', async () => {
    const dir = await bestModelDir('eng');
    expect(dir).toBeDefined();
    expect((await fs.lstat(dir!)).mode & 0o022).toBe(0);
    expect((await fs.stat(path.join(dir!, 'eng.traineddata'))).size).toBeGreaterThan(1_000_000);
    expect(await fs.readFile(path.join(dir!, 'configs', 'tsv'), 'utf8')).toBe('tessedit_create_tsv 1\n');
    expect(await bestModelDir('deu')).toBeUndefined();
  });
});
