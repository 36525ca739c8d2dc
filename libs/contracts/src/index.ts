export * from './documents';
export * as api from './api';
export * from './bundle';
