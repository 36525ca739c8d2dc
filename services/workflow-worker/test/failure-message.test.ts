// An operation's `error` is what GET /v1/operations/{id} shows: the stable code and a sentence,
// with no paths or stack frames (issue 19.3, docs/errors.md).
import { ApiError } from '@docfleet/errors';
import { ModelError } from '@docfleet/models';
import { failureMessage } from '../src/jobs/operation-run.handler';

it('keeps the code and the sentence and drops paths and frames', () => {
  const raw = new Error("EACCES: permission denied, open '/srv/docfleet/data/kb/1/files/2/segments.json'");
  raw.stack = `${raw.message}\n    at open (/app/services/workflow-worker/src/runners/split.ts:12:3)`;
  expect(failureMessage(raw)).toBe("EACCES: permission denied, open '<path>'");
  expect(failureMessage(new ApiError('file_must_be_parsed', 'The file /srv/docfleet/data/kb/x has no parse.'))).toBe(
    'file_must_be_parsed: The file <path> has no parse.',
  );
  expect(
    failureMessage(
      new ModelError('model_call_failed', 'provider answered 500\n    at fetch (node:internal/deps/undici:1:1)'),
    ),
  ).toBe('model_call_failed: provider answered 500');
});
