// Index-preserving folding for label search: a match position in the folded line is the same
// position in the original line, so quotes can be cut from the original text.
import { sameLengthFold } from '../text/dates';
export { escapeRegExp } from '../text/normalize';

export function sameLengthFoldSafe(text: string): string {
  const f = sameLengthFold(text);
  return f.length === text.length ? f : text.toLowerCase();
}
