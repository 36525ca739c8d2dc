// jsonArrayElements: a JSON array read element by element from a byte stream cut anywhere
// (inside strings, escapes, multi-byte characters), with the same values JSON.parse gives.
import { Readable } from 'node:stream';
import { jsonArrayElements } from '../src';

async function all(bytes: Buffer, size: number) {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  const out: unknown[] = [];
  for await (const e of jsonArrayElements(Readable.from(parts))) out.push(e);
  return out;
}

it('yields each element of an array cut at any byte, strings and nesting included', async () => {
  const v = [{ a: 'x,]"}\\', b: [1, { c: 2 }] }, 3.5, 'str', null, true, [[]], { é: 'ü😀 "q"' }, -2e3];
  const bytes = Buffer.from(JSON.stringify(v, null, 1));
  for (const size of [1, 2, 3, 5, 7, 64, 1 << 16]) expect(await all(bytes, size)).toEqual(v);
  expect(await all(Buffer.from('[]'), 1)).toEqual([]);
  expect(await all(Buffer.from(' [ 1 , 2 ] \n'), 2)).toEqual([1, 2]);
});

it('refuses what is not one closed JSON array', async () => {
  for (const bad of ['[1,', '{}', '[1,,2]', '[1] x', '', '[{"a":1}'])
    await expect(all(Buffer.from(bad), 2)).rejects.toThrow(SyntaxError);
});
