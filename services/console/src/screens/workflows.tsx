import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { href } from '../lib/router';
import { useAsync } from '../lib/use-async';
import { ClassifyTool, EditTool } from './classify-edit';
import { ExtractTool } from './extract';
import { SplitTool } from './split';

const TOOLS = [
  { id: 'extract', label: 'Extract' },
  { id: 'split', label: 'Split' },
  { id: 'classify', label: 'Classify' },
  { id: 'edit', label: 'Edit' },
] as const;

/** The model workflows on one parsed file, each on its own tab. */
export default function Workflows({ kbId, fileId, tool }: { kbId: string; fileId: string; tool: string }) {
  const { client } = useConsole();
  const file = useAsync((signal) => client.files.get(fileId, { signal }), [client, fileId]);
  const name = file.data?.file.filename ?? 'Document';
  return (
    <section aria-labelledby="wf-title">
      <p className="crumbs">
        <a href="#/">Knowledge bases</a> › <a href={href(['kb', kbId])}>Knowledge base</a> ›{' '}
        <a href={href(['kb', kbId, 'file', fileId])}>{name}</a> ›
      </p>
      <h1 id="wf-title">
        {TOOLS.find((t) => t.id === tool)?.label ?? tool}: {name}
      </h1>
      <nav className="tabs" aria-label="Workflows">
        {TOOLS.map((t) => (
          <a
            key={t.id}
            className="button"
            role="tab"
            aria-selected={t.id === tool}
            href={href(['kb', kbId, 'file', fileId, t.id])}
          >
            {t.label}
          </a>
        ))}
      </nav>
      <ErrorBanner error={file.error} />
      {tool === 'extract' && <ExtractTool kbId={kbId} fileId={fileId} />}
      {tool === 'split' && <SplitTool kbId={kbId} fileId={fileId} filename={name} />}
      {tool === 'classify' && <ClassifyTool kbId={kbId} fileId={fileId} />}
      {tool === 'edit' && <EditTool fileId={fileId} />}
      {!TOOLS.some((t) => t.id === tool) && (
        <p role="alert">
          No such workflow. <a href={href(['kb', kbId, 'file', fileId])}>Back to the document</a>
        </p>
      )}
    </section>
  );
}
