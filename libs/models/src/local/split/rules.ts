// Caller rules ({ name, description }) are free text written for a language model. The local model
// understands a few common intents and turns them into boundary score adjustments; the rest are
// ignored (and listed in the README as a limitation).
import type { SplitRule } from '../../tasks/outputs';
import type { PageFeatures } from './page-features';

type Adjust = (prev: PageFeatures, cur: PageFeatures) => { score: number; reasons: string[] };

export function ruleAdjustments(rules: SplitRule[]): Adjust {
  const text = rules.map((r) => `${r.name} ${r.description}`.toLowerCase()).join('\n');
  const everyPage = /\b(each|every) page\b.*\b(separate|own|new) (document|record)|one (document|record) per page/.test(
    text,
  );
  const keepTogether = /\b(never|do not|don't) split\b/.test(text);
  return (_prev, cur) => {
    if (everyPage) return { score: 10, reasons: ['rule: every page is its own record'] };
    if (keepTogether) return { score: -10, reasons: ['rule: keep pages together'] };
    const named = rules.find((r) => {
      const kw =
        /new document (?:starts|begins) (?:at|with|on) (?:each |every |a |the )?["“]?([\w -]{3,30}?)["”]?(?:\s|$|\.)/i.exec(
          r.description,
        )?.[1];
      return kw && cur.lines.slice(0, 4).some((l) => l.toLowerCase().includes(kw.toLowerCase()));
    });
    return named ? { score: 3, reasons: [`rule ${named.name}`] } : { score: 0, reasons: [] };
  };
}
