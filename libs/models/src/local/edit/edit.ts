// docfleet-local "edit": applies the understood operations to every segment line in memory and
// proposes the differences. Nothing is written; the proposal lists each changed line with its
// segment and page, and a unified-diff-style patch over the segment markdown.
import type { Evidence } from '../../types';
import { segmentPage } from '../../evidence';
import type { EditChange, EditOutput } from '../../tasks/outputs';
import { parseInstructions } from './instructions';

export function localEdit(ev: Evidence, prompt: string, rules: string[] = []): EditOutput {
  const { ops, understood, ignored } = parseInstructions(prompt, rules);
  const changes: EditChange[] = [];
  const hunks: string[] = [];
  for (const seg of ev.segments) {
    const lines = seg.markdown.split('\n');
    const minus: string[] = [];
    const plus: string[] = [];
    lines.forEach((line) => {
      let after = line;
      const reasons: string[] = [];
      for (const op of ops) {
        const next = op.apply(after);
        if (next !== after) {
          reasons.push(op.reason);
          after = next;
        }
      }
      if (after === line) return;
      changes.push({
        segmentId: seg.id,
        pageNumber: segmentPage(seg),
        before: line,
        after,
        reason: reasons.join('; '),
      });
      minus.push(`-${line}`);
      plus.push(`+${after}`);
    });
    if (minus.length)
      hunks.push(`@@ segment ${seg.id} page ${segmentPage(seg)} @@\n${minus.join('\n')}\n${plus.join('\n')}`);
  }
  const summary = !ops.length
    ? `No change proposed: the instruction was not understood by docfleet-local (it handles replace X with Y, dates to ISO, currency normalisation, redaction of emails and phone numbers).${ignored.length ? ` Not understood: ${ignored.join(' | ')}` : ''}`
    : `${changes.length} line${changes.length === 1 ? '' : 's'} in ${new Set(changes.map((c) => c.segmentId)).size} segment(s) would change (${[...new Set(ops.map((o) => o.reason))].join('; ')}).${ignored.length ? ` Not understood: ${ignored.join(' | ')}` : ''}`;
  return { summary, changes, patch: hunks.length ? `--- a/result.md\n+++ b/result.md\n${hunks.join('\n')}\n` : '' };
}
