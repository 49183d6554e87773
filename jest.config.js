/** Jest runs the TypeScript sources as native ESM (node --experimental-vm-modules). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }]
  },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
  testTimeout: 60000,
  // says once when the OS sandbox's suites cannot run here (and fails under CI=true)
  globalSetup: '<rootDir>/test-support/global-setup.mjs',
  globalTeardown: '<rootDir>/test-support/global-teardown.mjs',
  // e2e tests spawn real CLI processes: two cores, keep it modest.
  maxWorkers: 2
}
