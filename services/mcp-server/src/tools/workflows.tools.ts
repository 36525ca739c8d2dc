// Model workflows other than extraction: classify, class suggestions, split (rules or run), the
// split record download, and operation status.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ToolInputError } from '../errors';
import { queuedAnswer } from '../queued';
import { savePdf } from '../save-pdf';
import { absolutePath, fileId, uuid } from '../schemas';
import { ADDITIVE, READ_ONLY, defineTool } from '../tool';

export const DEFAULT_DOWNLOAD_DIR = path.join(os.tmpdir(), 'docfleet-downloads');

const page = (param: string) =>
  z
    .number({ error: `${param} must be a number` })
    .int(`${param} must be a whole page number`)
    .min(1, `${param} must be at least 1 (pages count from 1)`);

const SplitRule = z.object(
  {
    name: z.string({ error: 'every rule needs a name (string)' }).min(1, 'rule names must not be empty'),
    description: z
      .string({ error: 'every rule needs a description (string)' })
      .min(1, 'rule descriptions must not be empty'),
  },
  { error: 'each rule must be an object { name, description }' },
);

export const workflowTools = [
  defineTool({
    name: 'service_classify',
    title: 'Classify a document',
    description:
      'Labels a parsed document and each of its pages with one of the given classes (1 credit; the model runs inside the call, ' +
      'which may take a while on large files). Returns the document class with confidence and rationale, and per-page classes.',
    input: z.strictObject({
      file_id: fileId('the parsed file to classify'),
      classes: z
        .array(z.string().trim().min(1, 'class names must not be empty'), {
          error: 'classes must be an array of class names',
        })
        .min(1, 'classes needs at least one class name (service_suggest_classes can propose some)')
        .max(100)
        .describe('the candidate class names, e.g. ["invoice", "contract"]'),
    }),
    annotations: ADDITIVE,
    run: ({ file_id, classes }, { client }) => client.classify.run({ file_id, classes }),
  }),

  defineTool({
    name: 'service_suggest_classes',
    title: 'Suggest classes for a document',
    description:
      'Asks the model to propose document classes (name and description) for a parsed file, optionally steered by guidelines. 1 credit.',
    input: z.strictObject({
      file_id: fileId('the parsed file to look at'),
      guidelines: z
        .string({ error: 'guidelines must be a string' })
        .max(4000)
        .optional()
        .describe('what kind of classes you want, in plain words'),
    }),
    annotations: ADDITIVE,
    run: ({ file_id, guidelines }, { client }) => client.classify.suggestClasses({ file_id, guidelines }),
  }),

  defineTool({
    name: 'service_split',
    title: 'Split a multi-document PDF',
    description:
      'Finds document boundaries in a parsed multi-document file (1 credit; queued). With suggest_rules: true it first asks the ' +
      'model for split rules (output { rules }); otherwise it runs the split with your rules ([{ name, description }], e.g. a ' +
      'document type each) and the output is a split session with records (title, documentType, startPage, endPage) and a quality ' +
      'verdict. Returns an operation_id: poll service_operation_status (splits take tens of seconds per window). Save a record with service_split_download.',
    input: z
      .strictObject({
        file_id: fileId('the parsed file to split'),
        suggest_rules: z
          .boolean({ error: 'suggest_rules must be true or false' })
          .optional()
          .describe('true: only suggest rules for this file, do not split'),
        rules: z
          .array(SplitRule, { error: 'rules must be an array of { name, description }' })
          .min(1, 'rules needs at least one rule')
          .max(100)
          .optional()
          .describe('the document kinds to split into'),
      })
      .refine((a) => !(a.suggest_rules && a.rules), {
        message: 'pass either suggest_rules: true or rules, not both',
        path: ['rules'],
      })
      .refine((a) => a.suggest_rules || a.rules, {
        message: 'pass rules ([{ name, description }]) to split, or suggest_rules: true to get suggested rules first',
        path: ['rules'],
      }),
    annotations: ADDITIVE,
    run: async ({ file_id, suggest_rules, rules }, { client }) => {
      if (suggest_rules)
        return {
          mode: 'rules_suggest',
          ...queuedAnswer(await client.split.suggestRules({ file_id }), 'rule suggestion'),
        };
      // The default split key is derived from file, rules and model, so two deliberate identical
      // runs would collapse into one; a fresh key per call makes each call new work (docs/api.md, "Split").
      return {
        mode: 'split_run',
        ...queuedAnswer(await client.split.run({ file_id, rules: rules!, idempotency_key: randomUUID() }), 'the split'),
      };
    },
  }),

  defineTool({
    name: 'service_split_download',
    title: 'Save a page range as PDF',
    description:
      `Saves pages start_page..end_page of a PDF file (typically one record of a split) as a new PDF file on this machine and ` +
      `returns its path. Free (no model, no credit). The file is named after the title and never overwrites an existing file. ` +
      `out_dir defaults to ${DEFAULT_DOWNLOAD_DIR}.`,
    input: z
      .strictObject({
        file_id: fileId('the PDF file to cut from'),
        start_page: page('start_page').describe('first page, counting from 1'),
        end_page: page('end_page').describe('last page (inclusive)'),
        title: z
          .string({ error: 'title must be a string' })
          .trim()
          .min(1, 'title must not be empty')
          .max(300)
          .describe('title of the record; also names the saved file'),
        out_dir: absolutePath('out_dir', 'absolute directory to write into (created if missing)').optional(),
      })
      .refine((a) => a.end_page >= a.start_page, {
        message: 'end_page must be greater than or equal to start_page',
        path: ['end_page'],
      }),
    annotations: ADDITIVE,
    run: async ({ file_id, start_page, end_page, title, out_dir }, { client }) => {
      const bytes = await client.split.download({ file_id, startPage: start_page, endPage: end_page, title });
      if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-')
        throw new ToolInputError(
          'the server answered with something that is not a PDF; nothing was saved',
          'invalid_response',
        );
      const saved = await savePdf(out_dir ?? DEFAULT_DOWNLOAD_DIR, title, bytes);
      return { path: saved, bytes: bytes.length, file_id, start_page, end_page, title };
    },
  }),

  defineTool({
    name: 'service_operation_status',
    title: 'Operation status',
    description:
      'Status of a queued operation (split, split rule suggestion, extraction run, schema generation): status (queued, in_progress, ' +
      'completed, failed, cancelled), progress { done, total, phase }, error, and output once completed. Use it for every operation_id; ' +
      'parse and extract jobs use service_job_status instead.',
    input: z.strictObject({ operation_id: uuid('operation_id', 'the operation id returned by a queued tool') }),
    annotations: READ_ONLY,
    run: ({ operation_id }, { client }) => client.operations.get(operation_id),
  }),
];
