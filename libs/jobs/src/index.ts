// The owner of the `jobs` row (parse and extraction jobs) the way libs/billing owns the ledger:
// status words and their moves, creation and the idempotency retry chain, claim, progress,
// completion, failure, cancel, hand-back, events and the jobs' manifest ids.
export * from './abandon';
export * from './cancel';
export * from './create';
export * from './events';
export * from './extract-job';
export * from './idempotency';
export * from './index-job';
export * from './manifest-ids';
export * from './parse-job';
export * from './progress-sink';
export * from './status';
