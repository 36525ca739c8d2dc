export * from './documents';
export * as api from './api';
export * from './bundle';
export * from './parse-input';
export * from './json-depth';
