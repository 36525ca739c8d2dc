// Scratch folders are named after their process; at start-up a parse worker removes those whose
// process is gone (a worker killed mid-parse) and leaves the ones of live processes alone.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { removeDeadScratch } from '../src';
import { scratchPrefix } from '../src/parse/scratch';

it('removes the scratch folders of dead processes only', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'scratch-test-'));
  try {
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!; // a process that has exited
    const parent = process.ppid; // alive while this test runs
    const names = [
      `docfleet-pdf-${deadPid}-aB3dE9`,
      `docfleet-ocr-${deadPid}-zz99YY`,
      `docfleet-pdf-${parent}-Qw12Er`,
      path.basename(scratchPrefix('ocr', dir)) + 'Xy12Zz',
      'docfleet-pdf-notapid',
      'other-folder',
    ];
    for (const n of names) {
      await mkdir(path.join(dir, n));
      await writeFile(path.join(dir, n, 'page-1.png'), 'x');
    }
    const removed = await removeDeadScratch(dir);
    expect(removed.map((p) => path.basename(p)).sort()).toEqual(names.slice(0, 2).sort());
    expect((await readdir(dir)).sort()).toEqual(names.slice(2).sort());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
