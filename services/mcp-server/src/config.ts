// The tool server's environment (the root README, "Tool server and command line"), parsed once with zod. Any problem
// becomes one line on stderr: the server never starts on half-valid configuration, and stdout
// stays reserved for the protocol.
import { z } from 'zod';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
/** The gateway's own default MAX_UPLOAD_BYTES (docs/api.md, Limits): larger files would be refused anyway. */
export const DEFAULT_MAX_UPLOAD_BYTES = 200 * 1024 * 1024;

const TRUE_VALUES = new Set(['true', '1', 'yes']);

const Env = z.object({
  SERVICE_API_KEY: z
    .string({
      error: 'required: an organisation API key (sent as x-api-key); create one with `pnpm docfleet admin create-key`',
    })
    .trim()
    .min(1, 'required: an organisation API key (sent as x-api-key); create one with `pnpm docfleet admin create-key`'),
  SERVICE_BASE_URL: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : DEFAULT_BASE_URL).replace(/\/+$/, ''))
    .refine(
      (v) => /^https?:\/\/[^/]/i.test(v) && URL.canParse(v),
      'must be an http(s) URL such as http://127.0.0.1:8080',
    ),
  // Only the README's three spellings (TRUE_VALUES: true, 1, yes) turn the permanent-delete tools on;
  // anything else leaves them off.
  SERVICE_MCP_ALLOW_DESTRUCTIVE: z
    .string()
    .optional()
    .transform((v) => TRUE_VALUES.has((v ?? '').trim().toLowerCase())),
  SERVICE_MCP_MAX_UPLOAD_BYTES: z.coerce.number().int().min(1).default(DEFAULT_MAX_UPLOAD_BYTES),
});

export interface ToolServerConfig {
  apiKey: string;
  baseUrl: string;
  allowDestructive: boolean;
  maxUploadBytes: number;
}

export class ConfigError extends Error {}

/** Reads the environment; throws ConfigError whose message is a single line naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ToolServerConfig {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  return {
    apiKey: e.SERVICE_API_KEY,
    baseUrl: e.SERVICE_BASE_URL,
    allowDestructive: e.SERVICE_MCP_ALLOW_DESTRUCTIVE,
    maxUploadBytes: e.SERVICE_MCP_MAX_UPLOAD_BYTES,
  };
}
