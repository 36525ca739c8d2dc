// Parsing: queue one or many parses, and poll a job.
import { z } from 'zod';
import { fileId, fileIds, uuid } from '../schemas';
import { IDEMPOTENT, READ_ONLY, defineTool } from '../tool';

const POLL_HINT =
  'poll service_job_status with file_id and job_id about every 2-10 s until status is completed, failed or cancelled';

export const parseTools = [
  defineTool({
    name: 'service_parse_file',
    title: 'Parse a file',
    description:
      "Queues a parse of the file's current version (1 credit per page, or per sheet for spreadsheets; reserved now, charged per page). " +
      'Returns the job (job_id, status queued) at once; parsing runs in the background. ' +
      'Parsing produces markdown, grounding JSON, page images and segments, and makes the file searchable. ' +
      'Calling it again for an unchanged file returns the same job instead of charging twice.',
    input: z.strictObject({ file_id: fileId() }),
    annotations: IDEMPOTENT,
    run: async ({ file_id }, { client }) => ({ ...(await client.files.parse(file_id)), file_id, next: POLL_HINT }),
  }),

  defineTool({
    name: 'service_parse_bulk',
    title: 'Parse several files',
    description:
      'Queues parses of several files in request order (credits per page of every file). Not atomic: the first failure ' +
      '(e.g. an unknown file) stops the call while earlier files stay queued. Watch progress of all of them with service_kb_index.',
    input: z.strictObject({ file_ids: fileIds('the files to parse (at least one)') }),
    annotations: IDEMPOTENT,
    run: async ({ file_ids }, { client }) => ({
      ...(await client.files.parseBulk({ file_ids })),
      next: "service_kb_index shows every file's latest parse job",
    }),
  }),

  defineTool({
    name: 'service_job_status',
    title: 'Parse or extract job status',
    description:
      'Status of a parse or extract job: status (queued, running, completed, failed, cancelled), stage, percent (0-100), ' +
      'pages done, error when failed, and result when completed. Both ids are required. With include_events also the ' +
      "job's event log (oldest first; a job.failed event carries a traceback). For split, classify and other operations use service_operation_status.",
    input: z.strictObject({
      file_id: fileId('the file the job belongs to'),
      job_id: uuid('job_id', 'the job id returned by service_parse_file or service_extract'),
      include_events: z
        .boolean({ error: 'include_events must be true or false' })
        .optional()
        .describe("also return the job's event log"),
    }),
    annotations: READ_ONLY,
    run: async ({ file_id, job_id, include_events }, { client }) => {
      const { job } = await client.files.job(file_id, job_id);
      if (!include_events) return { job };
      const { events } = await client.files.jobEvents(file_id, job_id);
      return { job, events };
    },
  }),
];
