// The pure pieces behind two tools: which manifest service_read_artifact reads (newest by
// created_at, whatever order the listing has, per artifact type), and how service_split_download
// names files (safe names, never overwriting).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ArtifactManifest } from '@docfleet/sdk';
import { manifestTypeFor, newestManifest } from '../src/artifacts';
import { safePdfName, savePdf } from '../src/save-pdf';

const m = (id: string, created_at: string, artifact_type: 'parse' | 'extract'): ArtifactManifest =>
  ({
    id,
    created_at,
    artifact_type,
    file_id: 'f',
    file_version_id: 'v',
    job_id: null,
    manifest: {},
    links: {},
  }) as unknown as ArtifactManifest;

describe('newestManifest', () => {
  const list = [
    m('old-parse', '2026-01-01T10:00:00.000Z', 'parse'),
    m('extract', '2026-01-03T10:00:00.000Z', 'extract'),
    m('new-parse', '2026-01-02T10:00:00.000Z', 'parse'),
    m('older-parse', '2025-12-31T23:59:59.999Z', 'parse'),
  ];
  it('sorts by created_at itself instead of trusting the listing order, per artifact type', () => {
    expect(newestManifest(list, 'parse')?.id).toBe('new-parse');
    expect(newestManifest([...list].reverse(), 'parse')?.id).toBe('new-parse');
    expect(newestManifest(list, 'extract')?.id).toBe('extract');
    expect(
      newestManifest(
        list.filter((x) => x.artifact_type === 'parse'),
        'extract',
      ),
    ).toBeUndefined();
    expect(newestManifest([], 'parse')).toBeUndefined();
  });
  it('reads result_json from extractions and every other key from parses', () => {
    expect(manifestTypeFor('result_json')).toBe('extract');
    for (const k of ['result_md', 'grounding_json', 'workbook_json', 'tables_json', 'pages', 'imgs'] as const)
      expect(manifestTypeFor(k)).toBe('parse');
  });
});

describe('savePdf', () => {
  it('makes titles safe file names', () => {
    expect(safePdfName('Invoice 2023/03: ACME <draft>')).toBe('Invoice 2023_03_ ACME _draft');
    expect(safePdfName('../../etc/passwd')).toBe('etc_passwd');
    expect(safePdfName('///')).toBe('record');
    expect(safePdfName('Résumé – Zoë')).toBe('Résumé _ Zoë');
  });
  it('never overwrites: a taken name gets a counter', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'save-pdf-'));
    try {
      const a = await savePdf(path.join(dir, 'new'), 'Record', Buffer.from('%PDF-a'));
      const b = await savePdf(path.join(dir, 'new'), 'Record', Buffer.from('%PDF-b'));
      expect([path.basename(a), path.basename(b)]).toEqual(['Record.pdf', 'Record (2).pdf']);
      expect(await readFile(a, 'utf8')).toBe('%PDF-a');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
