export { levenshtein } from '../../src/edit-distance';
export { lcsLength, levenshteinRatio } from './lcs';
export { characterErrorRate, normaliseMarkdown, textSimilarity } from './text-similarity';
export { cellAccuracy, gridToCells, normCell, type CellScore, type GtCell, type OurCell } from './table-accuracy';
export { bestMatches, bottomLeftToTopLeft, iou, type Rect } from './box-iou';
export { parseCsv } from './csv';
export { parseIcdarRegions, parseIcdarStructure, type IcdarCell, type IcdarTable } from './icdar-xml';
export { htmlTableCells } from './html-table';
export { adjacencyRelations, adjacencyScore, prf, type AdjacencyScore } from './adjacency';
