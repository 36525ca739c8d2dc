import pino, { type Logger } from 'pino';

export type { Logger };

/** Root logger of a service; children carry request_id, job_id and so on. Secrets are redacted. */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        'api_key',
        'secret',
        'password',
        '*.api_key',
        '*.password',
        '*.secret',
      ],
      censor: '[redacted]',
    },
  });
}
