// One jest run for the whole workspace. Tests are TypeScript compiled by SWC to CommonJS
// (the generated Prisma client is CommonJS, see prisma/README.md).
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/test'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': [
      '@swc/jest',
      { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  globalSetup: '<rootDir>/libs/testing/src/global-setup.ts',
  testTimeout: 60000,
  maxWorkers: 2,
  modulePathIgnorePatterns: ['<rootDir>/.data', '<rootDir>/.tmp'],
};
