// Evaluation core: metric functions and the corpus runner, exported so the same evaluation can
// run through the real worker (pass your own EvalParseFn to evaluateCorpus).
export * from './metrics';
export {
  evaluateCorpus,
  readManifest,
  type EvalMetric,
  type EvalParseFn,
  type EvalRow,
  type ParsedForEval,
} from './corpus-eval';
export { evaluateText, textReport, type TextEvalRow } from './text-eval';
export { libraryParse } from './library-parse';
export { printReport, summarise, type SummaryLine } from './eval-parse';
