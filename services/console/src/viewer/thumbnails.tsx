import { useEffect, useRef, useState } from 'react';
import type { GroundingPage } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { useArtifactImage } from './artifact-image';

/** Page thumbnails; an image is fetched only while its thumbnail is on screen and freed after. */
export function Thumbnails({
  manifestId,
  pageFiles,
  pages,
  current,
  onPick,
}: {
  manifestId: string;
  pageFiles: Map<number, string>;
  pages: GroundingPage[];
  current: number;
  onPick: (p: number) => void;
}) {
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    list.current?.querySelector('[aria-current="page"]')?.scrollIntoView({ block: 'nearest' });
  }, [current]);
  return (
    <nav className="thumbs" aria-label="Pages">
      <ol ref={list}>
        {pages.map((p) => (
          <li key={p.page_number}>
            <button
              type="button"
              aria-current={p.page_number === current ? 'page' : undefined}
              aria-label={`Page ${p.page_number}`}
              onClick={() => onPick(p.page_number)}
            >
              <Thumb
                manifestId={manifestId}
                name={pageFiles.get(p.page_number)}
                ratio={p.height / p.width}
                root={list}
              />
              <span>{p.page_number}</span>
            </button>
          </li>
        ))}
      </ol>
    </nav>
  );
}

function Thumb({
  manifestId,
  name,
  ratio,
  root,
}: {
  manifestId: string;
  name?: string;
  ratio: number;
  root: React.RefObject<HTMLOListElement | null>;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [near, setNear] = useState(false);
  useEffect(() => {
    const io = new IntersectionObserver(([e]) => setNear(Boolean(e?.isIntersecting)), {
      root: root.current,
      rootMargin: '200px 0px',
    });
    if (box.current) io.observe(box.current);
    return () => io.disconnect();
  }, [root]);
  return (
    <div className="thumb" ref={box} style={{ aspectRatio: `1 / ${ratio || 1.3}` }}>
      {near && name && <ThumbImage manifestId={manifestId} name={name} />}
    </div>
  );
}

function ThumbImage({ manifestId, name }: { manifestId: string; name: string }) {
  const { client } = useConsole();
  const { url } = useArtifactImage(client, manifestId, 'pages', name);
  return url ? <img src={url} alt="" loading="lazy" /> : null;
}
