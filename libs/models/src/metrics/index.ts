export * from './metrics';
export * from './normalize-values';
