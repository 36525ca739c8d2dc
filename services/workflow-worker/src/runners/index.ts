// One runner per operation type. A type without a runner fails its attempt with a clear error
// (and, for queued workflows, its refund) rather than sitting in the queue.
import type { OperationType } from '@docfleet/workflows';
import { extractRunRunner } from './extract-run.runner';
import { schemaGenerateRunner } from './schema-generate.runner';
import { splitRulesSuggestRunner, splitRunRunner } from './split-run.runner';
import { classifyRunRunner, classifySuggestRunner } from './classify-run.runner';
import { editRunRunner } from './edit-run.runner';
import type { Runner } from './types';

export const RUNNERS: Partial<Record<OperationType, Runner>> = {
  extract_run: extractRunRunner,
  schema_generate: schemaGenerateRunner,
  split_run: splitRunRunner,
  split_rules_suggest: splitRulesSuggestRunner,
  classify_run: classifyRunRunner,
  classify_suggest: classifySuggestRunner,
  edit_run: editRunRunner,
};
