import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { FilesystemStorage, StorageLimitError, kbRoot } from '../src';

let dir: string;
let s: FilesystemStorage;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-storage-'));
  s = new FilesystemStorage(dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('filesystem storage', () => {
  it('streams with hashing and size, reads back, lists and moves', async () => {
    const data = Buffer.from('hello docfleet '.repeat(1000));
    const r = await s.putStream('kb/a/files/f/v1/original', Readable.from([data.subarray(0, 100), data.subarray(100)]));
    expect(r).toMatchObject({ byteSize: data.length, sha256: createHash('sha256').update(data).digest('hex') });
    expect((await s.read('kb/a/files/f/v1/original')).equals(data)).toBe(true);
    expect(await s.list('kb/a/files/f/v1')).toEqual([{ name: 'original', kind: 'file', size: data.length }]);
    await s.move('kb/a/files/f/v1/original', 'kb/a/files/f/v2/original');
    expect(await s.exists('kb/a/files/f/v1/original')).toBe(false);
    expect(await s.size('kb/a/files/f/v2/original')).toBe(data.length);
  });

  it('stops a stream over maxBytes and leaves nothing behind', async () => {
    await expect(
      s.putStream('kb/b/x', Readable.from([Buffer.alloc(10), Buffer.alloc(10)]), { maxBytes: 15 }),
    ).rejects.toBeInstanceOf(StorageLimitError);
    expect(await s.exists('kb/b/x')).toBe(false);
    expect(await s.list('kb/b')).toEqual([]);
  });

  it('refuses keys that escape the root', () => {
    expect(() => s.localPath('../etc/passwd')).toThrow(/escapes/);
    expect(() => s.localPath('kb/a/../../..')).toThrow(/escapes/);
    expect(() => s.localPath('a\0b')).toThrow();
  });

  it('removes one knowledge base root and reports whether it existed', async () => {
    await s.put(`${kbRoot('k1')}/one`, 'x');
    await s.put(`${kbRoot('k2')}/two`, 'y');
    expect(await s.removePrefix(kbRoot('k1'))).toBe(true);
    expect(await s.removePrefix(kbRoot('k1'))).toBe(false);
    expect(await s.exists(`${kbRoot('k2')}/two`)).toBe(true);
  });
});
