import type { GroundingElement } from '@docfleet/sdk';

/** Layers a person can toggle; each element type belongs to one, and each layer has one colour. */
export const LAYERS = [
  { id: 'title', label: 'Titles and headings', color: '#8e44ad', types: ['title', 'heading'] },
  { id: 'text', label: 'Text', color: '#2471a3', types: ['text', 'caption', 'footnote', 'formula', 'code'] },
  { id: 'list', label: 'Lists', color: '#17a589', types: ['list_item'] },
  { id: 'table', label: 'Tables', color: '#d35400', types: ['table'] },
  { id: 'figure', label: 'Figures', color: '#229954', types: ['figure'] },
  { id: 'furniture', label: 'Headers and footers', color: '#7f8c8d', types: ['page_header', 'page_footer'] },
  { id: 'form', label: 'Form fields', color: '#c0392b', types: ['key_value'] },
] as const;

export type LayerId = (typeof LAYERS)[number]['id'] | 'cells';

const byType = new Map<string, (typeof LAYERS)[number]>();
for (const l of LAYERS) for (const t of l.types) byType.set(t, l);

/** Unknown types (a newer parser) fall in the text layer rather than disappearing. */
export const layerOf = (el: Pick<GroundingElement, 'type'>) => byType.get(el.type) ?? LAYERS[1];
