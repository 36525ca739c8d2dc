// Moved to @docfleet/storage (the workflow worker's window reader streams bundles with it too).
export { jsonArrayElements } from '@docfleet/storage';
