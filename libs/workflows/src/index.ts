// @docfleet/workflows: what the gateway and the workflow worker share about model workflows —
// the Operation resource and its charging, evidence loading from parse artifacts, and the
// workflow runners themselves. See README.md.
export * from './evidence';
export * from './page-windows';
export * from './bounded-evidence';
export * from './keys';
export * from './operations/operations';
export * from './extract/result-tree';
export * from './extract/extract-run';
export * from './operations/reap';
export * from './extract/schema-record';
export * from './extract/json-schema-fields';
export * from './extract/scope';
export * from './extract/grounding-citations';
export * from './extract/extract-file';
export * from './operations/sync';
export * from './split/windows';
export * from './split/repair';
export * from './split/split-run';
export * from './split/download';
export * from './classify/classify-run';
export * from './edit/edit-run';
