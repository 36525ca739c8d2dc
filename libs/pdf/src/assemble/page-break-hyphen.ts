// A word hyphenated at the end of a block ("metallic-") goes on in the next body block in reading
// order: after the next page's running head ("ity. While …"), at the top of the next column, or past a
// figure, table, footnote or caption that interrupts the paragraph. Lines of one block are joined by
// the layout (`blockText`); what crosses blocks is joined here, on the grounding elements: per page
// when the page is finished, and across the page break where the document is assembled (pages are
// parsed one by one, and unchanged pages reused). The body block that ends the text before the break,
// skipping what stands after it (running head and foot, footnotes, figures, tables, captions), meets
// the body block that starts the text after it, skipping the same. The rest of the word moves to the
// element where the word starts, so search, citations and the markdown read it whole; each element
// keeps its own page and box.
import type { GroundingElement, GroundingPage } from '@docfleet/contracts';
import { joinHyphenated, textVocabulary } from '../layout/block-builder';

export interface AssemblyPage {
  grounding: GroundingPage;
  markdown: string;
}

/** What may stand between the end of one body block and the body block that continues it. */
const BETWEEN = new Set<GroundingElement['type']>([
  'page_header',
  'page_footer',
  'footnote',
  'figure',
  'table',
  'caption',
]);

const bodyEnd = (p: GroundingPage): number => {
  for (let i = p.elements.length - 1; i >= 0; i--) if (!BETWEEN.has(p.elements[i]!.type)) return i;
  return -1;
};
const bodyAfter = (p: GroundingPage, from: number): number => {
  for (let j = from; j < p.elements.length; j++) if (!BETWEEN.has(p.elements[j]!.type)) return j;
  return -1;
};
const endsHyphenated = (e: GroundingElement): boolean =>
  (e.type === 'text' || e.type === 'list_item') && e.content.endsWith('-');

/**
 * `prev` and `next` (consecutive pages) with a word broken across the break joined, or both unchanged
 * when the break is not inside a word. Pure: the inputs are not modified.
 */
export function joinPageBreakHyphen(prev: AssemblyPage, next: AssemblyPage): [AssemblyPage, AssemblyPage] {
  const unchanged: [AssemblyPage, AssemblyPage] = [prev, next];
  if (next.grounding.page_number !== prev.grounding.page_number + 1) return unchanged;
  const i = bodyEnd(prev.grounding),
    j = bodyAfter(next.grounding, 0);
  if (i < 0 || j < 0 || !endsHyphenated(prev.grounding.elements[i]!)) return unchanged;
  const vocab = textVocabulary(prev.grounding.elements.map((e) => e.content));
  textVocabulary(
    next.grounding.elements.map((e) => e.content),
    vocab,
  );
  const pair = joinElements(prev.grounding.elements[i]!, next.grounding.elements[j]!, vocab);
  if (!pair) return unchanged;
  const p = replaceElements(prev, new Map([[i, pair[0]]]));
  const n = replaceElements(next, new Map([[j, pair[1]]]));
  return p && n ? [p, n] : unchanged;
}

/**
 * The page with each word hyphenated at the end of a body block joined with the next body block of the
 * page in reading order (the next column, or the paragraph's rest past a figure, table, footnote or
 * caption), or the page itself when there is none. Pure: the input is not modified.
 */
export function joinBlockBreakHyphens(page: AssemblyPage): AssemblyPage {
  const els = page.grounding.elements;
  let vocab: Set<string> | undefined;
  const changed = new Map<number, GroundingElement>();
  const at = (k: number) => changed.get(k) ?? els[k]!;
  for (let i = bodyAfter(page.grounding, 0); i >= 0;) {
    const j = bodyAfter(page.grounding, i + 1);
    if (j < 0) break;
    if (endsHyphenated(at(i))) {
      // Only pages with a hyphen at a block's end read their words.
      vocab ??= textVocabulary(els.map((e) => e.content));
      const pair = joinElements(at(i), at(j), vocab);
      if (pair) changed.set(i, pair[0]).set(j, pair[1]);
    }
    i = j;
  }
  return (changed.size && replaceElements(page, changed)) || page;
}

/**
 * `a` (a body block ending in a hyphen) and `b` (the body text that follows it) with the rest of the
 * broken word moved from `b` to `a`, or undefined when they do not meet inside a word.
 */
function joinElements(
  a: GroundingElement,
  b: GroundingElement,
  vocab: Set<string>,
): [GroundingElement, GroundingElement] | undefined {
  // `a` ends in a hyphen (both callers check it before reading the page's words).
  if (b.type !== 'text') return undefined;
  // The first word of `b` with what clings to it ("ity.", "ity),"); the rest stays there.
  const first = /^(\S+)\s+(\S[\s\S]*)$/u.exec(b.content);
  if (!first) return undefined;
  const word = first[1]!;
  const content = joinHyphenated(a.content, word, vocab);
  // Fragments are the text on one line, escaped at its start: they end and start with the same words.
  const anchor = joinHyphenated(a.markdown_anchor, word, vocab);
  if (content === undefined || anchor === undefined || !b.markdown_anchor.startsWith(`${word} `)) return undefined;
  return [
    { ...a, content, markdown_anchor: anchor },
    { ...b, content: first[2]!, markdown_anchor: b.markdown_anchor.slice(word.length + 1) },
  ];
}

/**
 * The page with the elements at the given indices replaced, and their markdown fragments where the
 * page writes them (found in element order), or undefined when one is not found.
 */
function replaceElements(p: AssemblyPage, by: Map<number, GroundingElement>): AssemblyPage | undefined {
  const elements = p.grounding.elements.slice();
  let markdown = '';
  let from = 0;
  for (let k = 0; k < elements.length; k++) {
    const old = elements[k]!.markdown_anchor;
    const e = by.get(k);
    if (!e) {
      // Unchanged fragments are skipped over; one the page does not write is passed by.
      const at = old ? p.markdown.indexOf(old, from) : -1;
      if (at >= 0) {
        markdown += p.markdown.slice(from, at + old.length);
        from = at + old.length;
      }
      continue;
    }
    const at = p.markdown.indexOf(old, from);
    if (!old || at < 0) return undefined;
    markdown += p.markdown.slice(from, at) + e.markdown_anchor;
    from = at + old.length;
    elements[k] = e;
  }
  return { grounding: { ...p.grounding, elements }, markdown: markdown + p.markdown.slice(from) };
}
