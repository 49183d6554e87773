import { formatTestCounts, testCounts } from '../../src/reporting/test-counts.js'

describe('testCounts', () => {
  it('reads jest', () => {
    const out =
      'PASS src/a.test.ts\nTest Suites: 1 failed, 3 passed, 4 total\nTests:       1 failed, 2 skipped, 40 passed, 43 total\nSnapshots:   0 total\nTime:        2.1 s'
    expect(testCounts(out)).toEqual({ passed: 40, failed: 1, skipped: 2 })
  })

  it('reads vitest, also with colours', () => {
    const out =
      ' Test Files  2 passed (2)\n\u001b[2m      Tests \u001b[22m 41 passed\u001b[39m (41)\n   Start at  10:00:00'
    expect(testCounts(out)).toEqual({ passed: 41, failed: 0, skipped: 0 })
    expect(testCounts('      Tests  1 failed | 40 passed | 2 skipped (43)')).toEqual({
      passed: 40,
      failed: 1,
      skipped: 2
    })
  })

  it('reads mocha and node --test', () => {
    expect(testCounts('\n  40 passing (2s)\n  2 pending\n  1 failing\n')).toEqual({
      passed: 40,
      failed: 1,
      skipped: 2
    })
    expect(testCounts('# tests 41\n# suites 2\n# pass 40\n# fail 1\n# skipped 0\n')).toEqual({
      passed: 40,
      failed: 1,
      skipped: 0
    })
  })

  it('reads pytest', () => {
    expect(testCounts('========= 1 failed, 40 passed, 2 skipped in 1.23s =========')).toEqual({
      passed: 40,
      failed: 1,
      skipped: 2
    })
    expect(testCounts('41 passed in 0.50s')).toEqual({ passed: 41, failed: 0, skipped: 0 })
  })

  it('reads cargo test, summed over the test binaries', () => {
    const out =
      'test result: ok. 30 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out\n\ntest result: FAILED. 10 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out'
    expect(testCounts(out)).toEqual({ passed: 40, failed: 1, skipped: 1 })
  })

  it('reads go test -v', () => {
    const out =
      '=== RUN   TestA\n--- PASS: TestA (0.00s)\n=== RUN   TestB\n--- FAIL: TestB (0.00s)\n    --- PASS: TestB/sub (0.00s)\nFAIL\tx\t0.1s'
    expect(testCounts(out)).toEqual({ passed: 2, failed: 1, skipped: 0 })
  })

  it('is null for output without a summary it knows', () => {
    expect(testCounts('')).toBeNull()
    expect(testCounts('> eslint .\n\n✖ 2 problems (2 errors, 0 warnings)')).toBeNull()
    expect(testCounts('ok  \tgithub.com/x/y\t0.01s')).toBeNull()
  })
})

describe('formatTestCounts', () => {
  it('says failures first, skips last', () => {
    expect(formatTestCounts({ passed: 41, failed: 0, skipped: 0 })).toBe('41 passed')
    expect(formatTestCounts({ passed: 1200, failed: 1, skipped: 2 })).toBe(
      '1 failed, 1,200 passed, 2 skipped'
    )
  })
})
