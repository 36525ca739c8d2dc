import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { Router, type Response } from 'express';
import type { Logger } from '@docfleet/logger';

/**
 * The web console's built files (services/console/dist), served at `/`. Scripts and styles come
 * only from this origin (no inline script anywhere), images also from blob: URLs (page images are
 * fetched with the caller's credentials, never with a key in a URL), and the API is the only place
 * the page may connect to.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

/** Default location of the build, relative to this file (services/gateway/src/http). */
export const DEFAULT_CONSOLE_DIR = path.resolve(__dirname, '../../../console/dist');

function securityHeaders(res: Response) {
  res.setHeader('content-security-policy', CONSOLE_CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
}

/**
 * `dir` from CONSOLE_DIR: empty means the default build location, `off` disables the console.
 * Returns null (and says why) when there is nothing to serve.
 */
export function consoleRouter(dir: string, logger: Logger): Router | null {
  if (dir === 'off') return null;
  const root = path.resolve(dir || DEFAULT_CONSOLE_DIR);
  const index = path.join(root, 'index.html');
  if (!existsSync(index)) {
    logger.warn(
      { dir: root },
      'web console not served: no build found (run `pnpm --filter @docfleet/console build`, which scripts/setup.sh does)',
    );
    return null;
  }
  const router = Router();
  const sendIndex = (_req: unknown, res: Response) => {
    securityHeaders(res);
    // Always revalidated, so a new build's hashed asset names are picked up at once.
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(index);
  };
  router.get(['/', '/index.html'], sendIndex);
  // Hashed file names change with their content: cached for a year, never revalidated.
  router.use(
    '/assets',
    express.static(path.join(root, 'assets'), {
      index: false,
      immutable: true,
      maxAge: '365d',
      fallthrough: true,
      redirect: false,
      setHeaders: (res) => securityHeaders(res),
    }),
  );
  // Unhashed files at the top of the build (favicon): cached briefly.
  router.use(
    express.static(root, {
      index: false,
      maxAge: '1h',
      fallthrough: true,
      redirect: false,
      dotfiles: 'ignore',
      setHeaders: (res, file) => {
        if (path.basename(file) === 'index.html') res.setHeader('cache-control', 'no-cache');
        securityHeaders(res);
      },
    }),
  );
  logger.info({ dir: root }, 'web console served at /');
  return router;
}
