// The benchmark helpers live in libs/bench (@docfleet/bench), shared with services' own benchmarks.
export * from '../libs/bench/src';
