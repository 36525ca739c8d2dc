export * from './keys';
export * from './access';
export * from './authenticate';
export * from './key-cache';
export * from './passwords';
export * from './admin';
