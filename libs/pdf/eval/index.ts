// Evaluation core: metric functions and the corpus runner, exported so the same evaluation can
// run through the real worker (pass your own EvalParseFn to evaluateCorpus).
export * from './metrics';
export { evaluateCorpus, readManifest, type EvalParseFn, type EvalRow, type ParsedForEval } from './corpus-eval';
export { libraryParse } from './library-parse';
export { printReport } from './eval-parse';
