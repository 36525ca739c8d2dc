// @docfleet/workflows: what the gateway and the workflow worker share about model workflows —
// the Operation resource and its charging, evidence loading from parse artifacts, and the
// workflow runners themselves. See README.md.
export * from './evidence';
export * from './keys';
export * from './operations/operations';
export * from './extract/result-tree';
export * from './extract/extract-run';
export * from './extract/schema-record';
export * from './extract/json-schema-fields';
export * from './extract/scope';
export * from './extract/grounding-citations';
export * from './extract/extract-file';
export * from './operations/reap';
