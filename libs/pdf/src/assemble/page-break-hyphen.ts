// A word hyphenated at the end of a page ("metallic-") goes on after the next page's running head
// ("ity. While …"). Pages are parsed one by one (and unchanged pages reused), so the join is made
// where the document is assembled: the body text that ends the page, in reading order, skipping what
// stands after it (running head and foot, footnotes, figures, tables, captions), meets the body text
// that starts the next page, skipping the same. The rest of the word moves to the element where the
// word starts, so search, citations and the markdown read it whole; each element keeps its own box.
import type { GroundingElement, GroundingPage } from '@docfleet/contracts';
import { joinHyphenated, textVocabulary } from '../layout/block-builder';

export interface AssemblyPage {
  grounding: GroundingPage;
  markdown: string;
}

/** What may stand between the end of a page's body and the start of the next page's body. */
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
const bodyStart = (p: GroundingPage): number => p.elements.findIndex((e) => !BETWEEN.has(e.type));

/**
 * `prev` and `next` (consecutive pages) with a word broken across the break joined, or both unchanged
 * when the break is not inside a word. Pure: the inputs are not modified.
 */
export function joinPageBreakHyphen(prev: AssemblyPage, next: AssemblyPage): [AssemblyPage, AssemblyPage] {
  const unchanged: [AssemblyPage, AssemblyPage] = [prev, next];
  if (next.grounding.page_number !== prev.grounding.page_number + 1) return unchanged;
  const i = bodyEnd(prev.grounding),
    j = bodyStart(next.grounding);
  if (i < 0 || j < 0) return unchanged;
  const a = prev.grounding.elements[i]!,
    b = next.grounding.elements[j]!;
  if ((a.type !== 'text' && a.type !== 'list_item') || b.type !== 'text' || !a.content.endsWith('-')) return unchanged;
  // The first word of the next page with what clings to it ("ity.", "ity),"); the rest stays there.
  const first = /^(\S+)\s+(\S[\s\S]*)$/u.exec(b.content);
  if (!first) return unchanged;
  const word = first[1]!;
  const vocab = textVocabulary(prev.grounding.elements.map((e) => e.content));
  textVocabulary(
    next.grounding.elements.map((e) => e.content),
    vocab,
  );
  const content = joinHyphenated(a.content, word, vocab);
  // Fragments are the text on one line, escaped at its start: they end and start with the same words.
  const anchor = joinHyphenated(a.markdown_anchor, word, vocab);
  if (content === undefined || anchor === undefined || !b.markdown_anchor.startsWith(`${word} `)) return unchanged;
  const p = replaceElement(prev, i, { ...a, content, markdown_anchor: anchor }, 'last');
  const n = replaceElement(
    next,
    j,
    { ...b, content: first[2]!, markdown_anchor: b.markdown_anchor.slice(word.length + 1) },
    'first',
  );
  return p && n ? [p, n] : unchanged;
}

/** The page with element `k` replaced, its markdown fragment replaced where the page writes it. */
function replaceElement(
  p: AssemblyPage,
  k: number,
  e: GroundingElement,
  where: 'first' | 'last',
): AssemblyPage | undefined {
  const old = p.grounding.elements[k]!.markdown_anchor;
  const at = where === 'first' ? p.markdown.indexOf(old) : p.markdown.lastIndexOf(old);
  if (at < 0) return undefined;
  const elements = p.grounding.elements.slice();
  elements[k] = e;
  return {
    grounding: { ...p.grounding, elements },
    markdown: p.markdown.slice(0, at) + e.markdown_anchor + p.markdown.slice(at + old.length),
  };
}
