// jsonArrayElements with `at`: the array under one key of a top-level object (grounding.json's
// `pages`), read from a stream cut anywhere, skipping what comes before and stopping at its end.
import { Readable } from 'node:stream';
import { jsonArrayElements } from '../src';

async function all(bytes: Buffer, size: number, at: string) {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) parts.push(bytes.subarray(i, i + size));
  const out: unknown[] = [];
  for await (const e of jsonArrayElements(Readable.from(parts), { at })) out.push(e);
  return out;
}

it('yields the elements of the keyed array only, whatever precedes it and however the bytes are cut', async () => {
  const pages = [{ page_number: 1, t: 'a "pages": [9]' }, { page_number: 2, n: [1, [2]] }, 3];
  const doc = {
    schema_version: '1.0',
    document: { pages: [7, 8], filename: 'x","pages":[1]' },
    notpages: [5],
    pages,
    after: { pages: [6] },
  };
  const bytes = Buffer.from(JSON.stringify(doc, null, 1));
  for (const size of [1, 2, 3, 7, 64, 1 << 16]) expect(await all(bytes, size, 'pages')).toEqual(pages);
  expect(await all(Buffer.from('{"a":1}'), 1, 'pages')).toEqual([]);
  expect(await all(Buffer.from('{"pages":[]}'), 1, 'pages')).toEqual([]);
  await expect(all(Buffer.from('[1,2]'), 1, 'pages')).rejects.toThrow(/not a JSON object/);
});

it('stops reading at the end of the array', async () => {
  let pulled = 0;
  async function* source() {
    for (const s of ['{"pages":[1,', '2]', ',"rest":', '"never read"}']) {
      pulled++;
      yield s;
    }
  }
  const out: unknown[] = [];
  for await (const e of jsonArrayElements(source(), { at: 'pages' })) out.push(e);
  expect(out).toEqual([1, 2]);
  expect(pulled).toBe(2);
});
