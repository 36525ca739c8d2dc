import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { Principal } from '@docfleet/auth';
import { ApiError, type ErrorCode } from '@docfleet/errors';
import type { NextFunction, Request, Response, Router } from 'express';
import { z } from 'zod';
import { api } from '@docfleet/contracts';
import './types';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

export interface RouteDef<
  B extends z.ZodType | undefined,
  Q extends z.ZodObject | undefined,
  P extends z.ZodObject | undefined,
> {
  method: Method;
  /** Express-style path (`/v1/files/:fileId`); turned into `{fileId}` for OpenAPI. */
  path: string;
  summary: string;
  tags: string[];
  body?: B;
  query?: Q;
  params?: P;
  /** multipart/form-data body described by this schema (validated by the handler after multer). */
  multipart?: z.ZodObject;
  responses: Record<number, { description: string; schema?: z.ZodType; contentType?: string }>;
  /** Routes are authenticated unless this is false. */
  auth?: boolean;
  /** Error codes the route can answer with, documented in OpenAPI. */
  errors?: string[];
  /**
   * Body fields whose absence docs/errors.md answers with a code of its own (a workflow request without
   * `file_id` is 400 file_id_is_required, not invalid_request_body). Checked before the body schema.
   */
  required?: Partial<Record<string, ErrorCode>>;
}

/** Throws the field's own code when a required field of an object body is absent (missing, null or ''). */
function checkRequired(required: Partial<Record<string, ErrorCode>> | undefined, body: unknown): void {
  if (!required || !body || typeof body !== 'object' || Array.isArray(body)) return;
  for (const [field, code] of Object.entries(required)) {
    const v = (body as Record<string, unknown>)[field];
    if (code && (v === undefined || v === null || v === ''))
      throw new ApiError(code, `Send ${field}: this request needs it.`);
  }
}

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

export interface RouteCtx<B, Q, P> {
  req: Request;
  res: Response;
  body: B;
  query: Q;
  params: P;
  principal: Principal;
}

export type RouteResult = { status?: number; body: unknown; headers?: Record<string, string> } | void;

function parseOr<T extends z.ZodType>(
  schema: T,
  value: unknown,
  code: 'invalid_request_body' | 'invalid_request',
  what: string,
): z.output<T> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const first = r.error.issues[0];
    const where = first?.path.length ? `${first.path.join('.')}: ` : '';
    throw new ApiError(code, `Invalid ${what}: ${where}${first?.message ?? 'malformed'}`, {
      details: r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    });
  }
  return r.data;
}

/**
 * Registers routes on an express router and, from the same zod schemas, in the OpenAPI registry:
 * the document served at /v1/openapi.json cannot drift from what the gateway validates.
 */
export class ApiRoutes {
  readonly registry = new OpenAPIRegistry();

  constructor(readonly router: Router) {
    this.registry.registerComponent('securitySchemes', 'apiKey', { type: 'apiKey', in: 'header', name: 'x-api-key' });
    this.registry.registerComponent('securitySchemes', 'session', { type: 'http', scheme: 'bearer' });
  }

  add<
    B extends z.ZodType | undefined = undefined,
    Q extends z.ZodObject | undefined = undefined,
    P extends z.ZodObject | undefined = undefined,
  >(def: RouteDef<B, Q, P>, handler: (ctx: RouteCtx<Infer<B>, Infer<Q>, Infer<P>>) => Promise<RouteResult>): void {
    this.document(def);
    this.router[def.method](def.path, async (req: Request, res: Response, next: NextFunction) => {
      try {
        if (def.auth !== false && !req.principal) throw new ApiError('invalid_api_key', 'No credentials were sent.');
        const params = (
          def.params ? parseOr(def.params, req.params, 'invalid_request', 'path parameter') : undefined
        ) as Infer<P>;
        const query = (
          def.query ? parseOr(def.query, req.query, 'invalid_request', 'query parameter') : undefined
        ) as Infer<Q>;
        if (def.body) checkRequired(def.required, req.body ?? {});
        const body = (
          def.body ? parseOr(def.body, req.body ?? {}, 'invalid_request_body', 'request body') : undefined
        ) as Infer<B>;
        const out = await handler({ req, res, body, query, params, principal: req.principal as Principal });
        if (out && !res.headersSent) {
          for (const [k, v] of Object.entries(out.headers ?? {})) res.setHeader(k, v);
          res.status(out.status ?? 200).json(out.body);
        }
      } catch (err) {
        next(err);
      }
    });
  }

  private document(def: RouteDef<z.ZodType | undefined, z.ZodObject | undefined, z.ZodObject | undefined>) {
    const responses: Record<string, object> = {};
    for (const [status, r] of Object.entries(def.responses)) {
      responses[status] = r.schema
        ? { description: r.description, content: { [r.contentType ?? 'application/json']: { schema: r.schema } } }
        : { description: r.description };
    }
    const codes = [...new Set([...Object.values(def.required ?? {}), ...(def.errors ?? [])])];
    responses.default = {
      description: `Error envelope${codes.length ? `; codes: ${codes.join(', ')}` : ''}`,
      content: { 'application/json': { schema: api.ErrorEnvelope } },
    };
    const body = def.body
      ? { content: { 'application/json': { schema: def.body } }, required: true }
      : def.multipart
        ? {
            content: {
              'multipart/form-data': {
                schema: def.multipart.extend({ file: z.string().describe('binary file content') }),
              },
            },
            required: true,
          }
        : undefined;
    this.registry.registerPath({
      method: def.method,
      path: def.path.replace(/:(\w+)/g, '{$1}'),
      summary: def.summary,
      tags: def.tags,
      operationId: `${def.method}_${def.path
        .replace(/^\/v1\//, '')
        .replace(/[/:{}-]+/g, '_')
        .replace(/_+$/, '')}`,
      security: def.auth === false ? [] : [{ apiKey: [] }, { session: [] }],
      request: { params: def.params, query: def.query, body },
      responses,
    });
  }

  openapi(version: string) {
    return new OpenApiGeneratorV31(this.registry.definitions).generateDocument({
      openapi: '3.1.0',
      info: {
        title: 'docfleet API',
        version,
        description:
          'Self-hosted document processing: knowledge bases, files, parsing, search, extraction and workflows. Every error is { error, code, message?, request_id }; branch on code.',
      },
      servers: [{ url: '/' }],
    });
  }
}
