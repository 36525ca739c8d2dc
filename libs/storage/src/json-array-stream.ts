// The elements of a top-level JSON array, one at a time, from a byte stream: a 10,000-page
// document's segments.json is never held (or parsed) whole. The scanner tracks strings, escapes and
// nesting depth; each element's text is handed to JSON.parse alone. With `at`, the array is the value
// of that key of a top-level object (grounding.json's `pages`): what comes before it is scanned, not
// kept, and reading stops at the array's end.
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

const WS = /\s/;

export interface JsonArrayOptions {
  /** Read the array under this key of a top-level object instead of a top-level array. */
  at?: string;
}

export async function* jsonArrayElements(
  source: AsyncIterable<Buffer | string> | Readable,
  opts: JsonArrayOptions = {},
): AsyncGenerator<unknown> {
  const decoder = new StringDecoder('utf8');
  const at = opts.at;
  // Before the array when `at` is set: the enclosing object's depth, strings and last key.
  let pDepth = 0;
  let pInString = false;
  let pEscaped = false;
  let pString = '';
  let lastKey: string | null = null;
  let afterColon = false;
  /** One character before the array: finds `"<at>": [` at the top level of the object. */
  function before(ch: string): void {
    if (pInString) {
      if (pEscaped) pEscaped = false;
      else if (ch === '\\') pEscaped = true;
      else if (ch === '"') {
        pInString = false;
        if (pDepth === 1) lastKey = pString;
        return;
      }
      if (pDepth === 1) pString += ch;
      return;
    }
    if (afterColon) {
      if (WS.test(ch)) return;
      afterColon = false;
      if (ch === '[') {
        started = true;
        return;
      }
    }
    if (pDepth === 0 && !WS.test(ch) && ch !== '{') throw new SyntaxError('not a JSON object');
    if (ch === '"') {
      pInString = true;
      pString = '';
    } else if (ch === '{' || ch === '[') {
      pDepth++;
      lastKey = null;
    } else if (ch === '}' || ch === ']') {
      pDepth--;
      if (pDepth === 0) ended = true; // the object has no such array: no elements
    } else if (ch === ':' && pDepth === 1 && lastKey === at) afterColon = true;
    else if (ch === ',') lastKey = null;
  }
  let started = false;
  let ended = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** An element is being read; its text before this chunk is in `carried`. */
  let open = false;
  let carried = '';
  function* scan(text: string): Generator<unknown> {
    let begin = open ? 0 : -1;
    const take = (i: number) => {
      const el = (carried + text.slice(begin, i)).trim();
      carried = '';
      begin = -1;
      open = false;
      return el;
    };
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (ended) {
        if (at !== undefined) return;
        if (!WS.test(ch)) throw new SyntaxError('unexpected data after the JSON array');
        continue;
      }
      if (!started && at !== undefined) {
        before(ch);
        continue;
      }
      if (!started) {
        if (WS.test(ch)) continue;
        if (ch !== '[') throw new SyntaxError('not a JSON array');
        started = true;
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === '\\') escaped = true;
        else if (ch === '"') inString = false;
        continue;
      }
      const starts = () => {
        if (depth === 0 && !open) {
          open = true;
          begin = i;
        }
      };
      if (ch === '"') {
        starts();
        inString = true;
      } else if (ch === '{' || ch === '[') {
        starts();
        depth++;
      } else if (ch === '}' || ch === ']') {
        if (depth > 0) depth--;
        else {
          // The array's own closing bracket.
          if (open) yield JSON.parse(take(i));
          ended = true;
        }
      } else if (depth === 0) {
        if (ch === ',') {
          const el = open ? take(i) : '';
          if (!el) throw new SyntaxError('empty element in the JSON array');
          yield JSON.parse(el);
        } else if (!WS.test(ch)) starts(); // a number, true, false or null
      }
    }
    if (open) carried += text.slice(begin);
  }
  for await (const chunk of source) {
    yield* scan(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    if (ended && at !== undefined) return;
  }
  yield* scan(decoder.end());
  if (!ended) throw new SyntaxError(started ? 'the JSON array is not closed' : 'not a JSON array');
}
