// `extract FILE_ID --schema schema.json`: a JSON Schema runs the file extraction job (validated,
// no credit) and reads its result_json; a field list ({ fields: [...] }) runs the queued
// extraction operation (1 credit). Either way the command waits and prints values with citations.
import type { Citation, ExtractionDocument, ExtractRunOutput, FieldListSchema, JsonObject } from '@docfleet/sdk';
import type { Values } from './run';
import { usage, type CommandContext } from './context';
import { readJsonFile } from './read-json';
import { oneLine, table } from './table';
import { settleJob, settleOperation } from './wait';

function isFieldList(s: JsonObject): boolean {
  return Array.isArray(s.fields);
}

export async function extractCommand({ client, io }: CommandContext, args: string[], values: Values): Promise<void> {
  if (args.length !== 1) usage('extract takes exactly one FILE_ID');
  const schemaFile = values.schema as string | undefined;
  if (!schemaFile) usage('extract needs --schema schema.json (a JSON Schema, or a field list { "fields": [...] })');
  const schema = await readJsonFile(schemaFile, 'schema');
  if (!schema || typeof schema !== 'object' || Array.isArray(schema))
    usage(`--schema ${schemaFile}: expected a JSON object`);
  const [fileId] = args;

  let result: {
    mode: 'job' | 'operation';
    file_id: string;
    job_id?: string;
    operation_id?: string;
    values: JsonObject;
    citations: Citation[];
    validation_errors?: unknown[];
    document: unknown;
  };
  if (isFieldList(schema as JsonObject)) {
    const r = await client.extract.run({ file_id: fileId, schema: schema as FieldListSchema });
    const { operationId, output } = await settleOperation<ExtractRunOutput>(client, io, r, 'extraction');
    result = {
      mode: 'operation',
      file_id: fileId,
      operation_id: operationId ?? output.operation_id,
      values: output.jsonResult,
      citations: output.citations ?? [],
      document: output,
    };
  } else {
    const { job } = await client.files.extract(fileId, { schema: schema as JsonObject });
    const done = await settleJob(client, io, fileId, job.job_id, 'extraction');
    const manifestId = (done.result as { artifact_manifest_id?: string } | null)?.artifact_manifest_id;
    if (!manifestId) throw new Error(`extraction job ${job.job_id} completed without a result manifest`);
    const doc: ExtractionDocument = await client.artifacts.get(manifestId, 'result_json');
    result = {
      mode: 'job',
      file_id: fileId,
      job_id: job.job_id,
      values: doc.jsonResult ?? doc.data,
      citations: doc.citations ?? [],
      validation_errors: doc.validationErrors,
      document: doc,
    };
  }

  if (io.json) return io.result(result);
  await io.out(JSON.stringify(result.values, null, 2));
  if (result.citations.length) {
    await io.out('');
    await io.out(
      table(
        ['FIELD', 'PAGE', 'SEGMENT', 'QUOTE'],
        result.citations.map((c) => [c.path, c.pageNumber, c.segmentId, oneLine(c.quote ?? '')]),
      ),
    );
  }
  if (result.validation_errors?.length)
    await io.out(
      `\n${result.validation_errors.length} schema validation errors: ${JSON.stringify(result.validation_errors)}`,
    );
}
