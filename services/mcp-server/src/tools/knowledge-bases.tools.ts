// Knowledge bases: list, create, read the index, and the gated permanent delete.
import { z } from 'zod';
import { kbId } from '../schemas';
import { ADDITIVE, DESTRUCTIVE, READ_ONLY, defineTool } from '../tool';

export const knowledgeBaseTools = [
  defineTool({
    name: 'service_list_knowledge_bases',
    title: 'List knowledge bases',
    description:
      'Lists the knowledge bases of the organisation, newest first, with id, name and description. Start here to find the kb_id other tools need.',
    input: z.strictObject({}),
    annotations: READ_ONLY,
    run: (_a, { client }) => client.knowledgeBases.list(),
  }),

  defineTool({
    name: 'service_create_knowledge_base',
    title: 'Create a knowledge base',
    description:
      'Creates a knowledge base (a group of files that are indexed and searched together) and returns it with its id. ' +
      'Names are unique per organisation, compared case-insensitively; a clash fails with duplicate_knowledge_base_name.',
    input: z.strictObject({
      name: z
        .string({ error: 'name must be a string' })
        .trim()
        .min(1, 'name must not be empty')
        .max(200, 'name takes at most 200 characters')
        .describe('display name, unique in the organisation'),
      description: z
        .string({ error: 'description must be a string' })
        .max(2000, 'description takes at most 2000 characters')
        .optional()
        .describe('what the knowledge base holds'),
    }),
    annotations: ADDITIVE,
    run: ({ name, description }, { client }) => client.knowledgeBases.create({ name, description }),
  }),

  defineTool({
    name: 'service_kb_index',
    title: 'Knowledge base index',
    description:
      'Every live file of a knowledge base in one call: filename, version, page count, the latest parse and extract job ' +
      '(status, stage, percent, error) and artifact links. The way to watch many files parse; call it again to see progress.',
    input: z.strictObject({ kb_id: kbId() }),
    annotations: READ_ONLY,
    run: ({ kb_id }, { client }) => client.knowledgeBases.index(kb_id),
  }),

  defineTool({
    name: 'service_delete_knowledge_base',
    title: 'Permanently delete a knowledge base',
    description:
      'IRREVERSIBLE. Permanently deletes a knowledge base with every file in it (live and trashed), their versions, artifacts, ' +
      'index entries, folders, grants and jobs. There is no undo. Only call it when the user explicitly asked for this knowledge base to be destroyed.',
    input: z.strictObject({ kb_id: kbId('the knowledge base to destroy') }),
    annotations: DESTRUCTIVE,
    gated: true,
    run: ({ kb_id }, { client }) => client.knowledgeBases.delete(kb_id, { confirmPermanent: true }),
  }),
];
