import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { GroundingElement, GroundingPage, TableCell } from '@docfleet/sdk';
import { layerOf, type LayerId } from './layers';

export interface Region {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

interface Props {
  page: GroundingPage;
  imageUrl: string | undefined;
  visible: Set<LayerId>;
  selectedId: string | undefined;
  region?: Region;
  onSelect: (id: string) => void;
}

const pct = (v: number) => `${(Math.min(1, Math.max(0, v)) * 100).toFixed(4)}%`;

/**
 * The page image with one absolutely positioned box per grounding element, placed in percent of
 * the page (bbox fractions), so the boxes follow the image at every zoom without re-layout work.
 * Boxes are drawn once the image has loaded; performance marks time that step.
 */
export function PageView({ page, imageUrl, visible, selectedId, region, onSelect }: Props) {
  const [loadedUrl, setLoadedUrl] = useState<string>();
  const [hover, setHover] = useState<{ el: GroundingElement; x: number; y: number }>();
  const stage = useRef<HTMLDivElement>(null);
  const loaded = Boolean(imageUrl) && loadedUrl === imageUrl;
  // Stable, so moving the pointer re-renders the tooltip and not the 500 boxes under it.
  const onHover = useCallback(
    (el: GroundingElement | undefined, x: number, y: number) => setHover(el ? { el, x, y } : undefined),
    [],
  );

  useLayoutEffect(() => {
    if (!loaded) return;
    // Boxes are in the DOM: force style and layout now, so this measure is the drawing work itself;
    // the one after the next frame adds the wait for the frame and its paint.
    void stage.current?.querySelector('.page-overlay')?.getBoundingClientRect();
    performance.mark('docfleet:page-boxes-laid-out');
    performance.measure('docfleet:page-layout', {
      start: 'docfleet:page-image-loaded',
      end: 'docfleet:page-boxes-laid-out',
      detail: { page: page.page_number, boxes: page.elements.length },
    });
    const raf = requestAnimationFrame(() => {
      performance.mark('docfleet:page-boxes-drawn', {
        detail: { page: page.page_number, boxes: page.elements.length },
      });
      performance.measure('docfleet:page-draw', {
        start: 'docfleet:page-image-loaded',
        end: 'docfleet:page-boxes-drawn',
        detail: { page: page.page_number, boxes: page.elements.length },
      });
    });
    return () => cancelAnimationFrame(raf);
  }, [loaded, page]);

  useEffect(() => {
    if (!selectedId || !loaded) return;
    stage.current
      ?.querySelector(`[data-element-id="${CSS.escape(selectedId)}"]`)
      ?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [selectedId, loaded]);

  return (
    <div className="page-stage" ref={stage} style={{ aspectRatio: `${page.width} / ${page.height}` }}>
      {imageUrl && (
        <img
          className="page-image"
          src={imageUrl}
          alt={`Page ${page.page_number}`}
          draggable={false}
          onLoad={() => {
            performance.mark('docfleet:page-image-loaded', { detail: { page: page.page_number } });
            setLoadedUrl(imageUrl);
          }}
        />
      )}
      {loaded && (
        <div
          className="page-overlay"
          data-page={page.page_number}
          data-testid="page-overlay"
          onMouseLeave={() => setHover(undefined)}
        >
          <Boxes
            elements={page.elements}
            visible={visible}
            selectedId={selectedId}
            onSelect={onSelect}
            onHover={onHover}
            stage={stage}
          />
          {region && (
            <div
              className="hit-region"
              data-testid="hit-region"
              style={{
                left: pct(region.x1),
                top: pct(region.y1),
                width: pct(region.x2 - region.x1),
                height: pct(region.y2 - region.y1),
              }}
            />
          )}
        </div>
      )}
      {hover && (
        <div className="box-tooltip" role="tooltip" style={{ left: hover.x, top: hover.y }}>
          <strong>{hover.el.label}</strong>
          <span>{hover.el.content.length > 400 ? `${hover.el.content.slice(0, 400)}…` : hover.el.content}</span>
        </div>
      )}
    </div>
  );
}

const Boxes = memo(function Boxes({
  elements,
  visible,
  selectedId,
  onSelect,
  onHover,
  stage,
}: {
  elements: GroundingElement[];
  visible: Set<LayerId>;
  selectedId: string | undefined;
  onSelect: (id: string) => void;
  onHover: (el: GroundingElement | undefined, x: number, y: number) => void;
  stage: React.RefObject<HTMLDivElement | null>;
}) {
  const hoverAt = (el: GroundingElement) => (e: React.MouseEvent) => {
    const r = stage.current!.getBoundingClientRect();
    onHover(el, e.clientX - r.left + 12, e.clientY - r.top + 12);
  };
  return (
    <>
      {elements.map((el) => {
        const layer = layerOf(el);
        if (!visible.has(layer.id)) return null;
        const b = el.bbox;
        return (
          <div
            key={el.id}
            className={`box${el.id === selectedId ? ' selected' : ''}`}
            data-element-id={el.id}
            data-type={el.type}
            role="button"
            tabIndex={0}
            aria-label={`${el.label}: ${el.content.slice(0, 80)}`}
            aria-pressed={el.id === selectedId}
            style={{
              left: pct(b.x1),
              top: pct(b.y1),
              width: pct(b.x2 - b.x1),
              height: pct(b.y2 - b.y1),
              borderColor: layer.color,
              ['--box' as string]: layer.color,
            }}
            onClick={() => onSelect(el.id)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') {
                e.preventDefault();
                onSelect(el.id);
              }
            }}
            onMouseMove={hoverAt(el)}
          />
        );
      })}
      {visible.has('cells') &&
        elements.map((el) => (el.cells && visible.has(layerOf(el).id) ? <Cells key={`c-${el.id}`} el={el} /> : null))}
    </>
  );
});

/** docs/api.md (Resources, boxes): a precise cell box only on a detected axis; an estimated axis is drawn as a band. */
function Cells({ el }: { el: GroundingElement }) {
  const cols = el.cellGrid?.cols ?? (el.cellsSource === 'grid-estimate' ? 'estimated' : 'detected');
  const rows = el.cellGrid?.rows ?? cols;
  const t = el.bbox;
  const seen = new Set<string>();
  return (
    <>
      {(el.cells ?? []).map((c: TableCell, k: number) => {
        const b = {
          x1: cols === 'detected' ? c.bbox.x1 : t.x1,
          x2: cols === 'detected' ? c.bbox.x2 : t.x2,
          y1: rows === 'detected' ? c.bbox.y1 : t.y1,
          y2: rows === 'detected' ? c.bbox.y2 : t.y2,
        };
        const id = `${b.x1}:${b.y1}:${b.x2}:${b.y2}`;
        if (seen.has(id)) return null; // a band is drawn once, not once per cell in it
        seen.add(id);
        return (
          <div
            key={k}
            className={`cell${c.isHeader ? ' header' : ''}`}
            data-cell={`${c.row},${c.col}`}
            title={c.text}
            style={{ left: pct(b.x1), top: pct(b.y1), width: pct(b.x2 - b.x1), height: pct(b.y2 - b.y1) }}
          />
        );
      })}
    </>
  );
}
