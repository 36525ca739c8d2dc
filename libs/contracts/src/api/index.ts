export * from './common';
export * from './knowledge-bases';
export * from './files';
export * from './billing';
export * from './auth';
export * from './parse';
export * from './workflows';
export * from './extract';
