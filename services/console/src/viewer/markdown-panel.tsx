import { useEffect, useRef } from 'react';
import type { GroundingPage } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { Markdown } from '../lib/markdown';
import { useArtifactImage } from './artifact-image';
import { layerOf } from './layers';

/**
 * The page's markdown, one block per grounding element (each element's markdown_anchor is its
 * exact fragment of result_md), so a click on either side finds the other.
 */
export function MarkdownPanel({
  manifestId,
  page,
  selectedId,
  onSelect,
}: {
  manifestId: string;
  page: GroundingPage;
  selectedId: string | undefined;
  onSelect: (id: string) => void;
}) {
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    if (!selectedId) return;
    panel.current
      ?.querySelector(`[data-md-element-id="${CSS.escape(selectedId)}"]`)
      ?.scrollIntoView({ block: 'nearest' });
  }, [selectedId, page]);
  const image = (src: string, alt: string) => <CropImage manifestId={manifestId} src={src} alt={alt} />;
  return (
    <aside
      className="md-panel"
      ref={panel}
      aria-label={`Markdown of page ${page.page_number}`}
      data-testid="markdown-panel"
    >
      {page.elements.map((el) => {
        const md = el.markdown_anchor?.trim();
        return (
          <div
            key={el.id}
            className={`md-block${el.id === selectedId ? ' selected' : ''}${md ? '' : ' muted'}`}
            data-md-element-id={el.id}
            style={{ borderLeftColor: layerOf(el).color }}
            role="button"
            tabIndex={0}
            aria-pressed={el.id === selectedId}
            onClick={() => onSelect(el.id)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') onSelect(el.id);
            }}
          >
            {md ? (
              <Markdown text={md} image={image} />
            ) : (
              <p>
                <span className="tag">{el.label}</span> {el.content}
              </p>
            )}
          </div>
        );
      })}
      {page.elements.length === 0 && <p className="muted">No elements on this page.</p>}
    </aside>
  );
}

function CropImage({ manifestId, src, alt }: { manifestId: string; src: string; alt: string }) {
  const { client } = useConsole();
  const m = /^imgs\/([^/?#]+)$/.exec(src);
  const { url } = useArtifactImage(client, m ? manifestId : undefined, 'imgs', m?.[1]);
  if (!m) return <span className="muted">[{alt || 'image'}]</span>;
  return url ? (
    <img className="crop" src={url} alt={alt || 'figure'} />
  ) : (
    <span className="muted">[{alt || 'image'}]</span>
  );
}
