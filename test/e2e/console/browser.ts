import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { root } from '../fleet-process';

/** Screenshots a person can look at after a run (gitignored). */
export const ARTIFACTS = path.join(root, 'test/artifacts/console');

/** Debian's chromium (scripts/setup.sh installs it), driven by playwright-core: no browser download. */
export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error("chromium is not installed: run `bash scripts/setup.sh` (it installs Debian's chromium)");
  }
}

export async function launchBrowser(): Promise<Browser> {
  const args = ['--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--disable-extensions'];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args });
}

/** The console's build, made here when setup has not made it (e.g. right after a pull). */
export async function ensureConsoleBuilt(): Promise<void> {
  if (existsSync(path.join(root, 'services/console/dist/index.html'))) return;
  await promisify(execFile)('pnpm', ['exec', 'vite', 'build', '--logLevel', 'warn'], {
    cwd: path.join(root, 'services/console'),
  });
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: false });
}

/** Everything the page reports that a person would never want: script errors and CSP refusals. */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
  });
  page.on('dialog', (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  return problems;
}
