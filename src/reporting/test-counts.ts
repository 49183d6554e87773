/**
 * How many tests a verify command ran, read from the end of its output: the summary lines of
 * the common runners (jest, vitest, mocha, node --test, pytest, go test, cargo test). Pure; null
 * when the output has no summary it knows.
 */

export interface TestCounts {
  passed: number
  failed: number
  skipped: number
}

type Parser = (text: string) => TestCounts | null

const n = (match: RegExpMatchArray | null | undefined, group = 1): number =>
  match?.[group] === undefined ? 0 : Number(match[group])

/** The counts in a jest or vitest summary line: `1 failed, 2 skipped, 40 passed` (todo is skipped). */
function summaryCounts(line: string): TestCounts {
  return {
    passed: n(/(\d+) passed/.exec(line)),
    failed: n(/(\d+) failed/.exec(line)),
    skipped: n(/(\d+) skipped/.exec(line)) + n(/(\d+) todo/.exec(line))
  }
}

/** `Tests:       1 failed, 2 skipped, 40 passed, 43 total` (jest). */
const jest: Parser = (text) => {
  const lines = [...text.matchAll(/^\s*Tests:\s+(.*\d+ total)\s*$/gm)]
  const line = lines.at(-1)?.[1]
  if (line === undefined) return null
  return summaryCounts(line)
}

/** `      Tests  1 failed | 40 passed | 2 skipped (43)` (vitest). */
const vitest: Parser = (text) => {
  const line = [...text.matchAll(/^\s*Tests\s{2,}(.*\(\d+\))\s*$/gm)].at(-1)?.[1]
  if (line === undefined) return null
  return summaryCounts(line)
}

/** `  40 passing (2s)` / `  1 failing` / `  2 pending` (mocha). */
const mocha: Parser = (text) => {
  const passing = [...text.matchAll(/^\s*(\d+) passing\b/gm)].at(-1)
  if (passing === undefined) return null
  return {
    passed: n(passing),
    failed: n([...text.matchAll(/^\s*(\d+) failing\b/gm)].at(-1)),
    skipped: n([...text.matchAll(/^\s*(\d+) pending\b/gm)].at(-1))
  }
}

/** `# pass 40` / `# fail 1` / `# skipped 2` (node --test, TAP) or `ℹ pass 40`. */
const nodeTest: Parser = (text) => {
  const pass = [...text.matchAll(/^[#ℹ] pass (\d+)\s*$/gm)].at(-1)
  if (pass === undefined) return null
  return {
    passed: n(pass),
    failed: n([...text.matchAll(/^[#ℹ] fail (\d+)\s*$/gm)].at(-1)),
    skipped:
      n([...text.matchAll(/^[#ℹ] skipped (\d+)\s*$/gm)].at(-1)) +
      n([...text.matchAll(/^[#ℹ] todo (\d+)\s*$/gm)].at(-1))
  }
}

/** `==== 1 failed, 40 passed, 2 skipped in 1.23s ====` or `40 passed in 0.5s` (pytest). */
const pytest: Parser = (text) => {
  const line = [
    ...text.matchAll(
      /^=*\s*((?:\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected|warnings?)(?:, )?)+) in [\d.]+s\b.*$/gm
    )
  ].at(-1)?.[1]
  if (line === undefined) return null
  return {
    passed: n(/(\d+) passed/.exec(line)) + n(/(\d+) xpassed/.exec(line)),
    failed: n(/(\d+) failed/.exec(line)) + n(/(\d+) errors?\b/.exec(line)),
    skipped: n(/(\d+) skipped/.exec(line)) + n(/(\d+) xfailed/.exec(line))
  }
}

/** `test result: ok. 40 passed; 1 failed; 2 ignored; ...`, summed over the test binaries (cargo). */
const cargo: Parser = (text) => {
  const results = [
    ...text.matchAll(/^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm)
  ]
  if (results.length === 0) return null
  return results.reduce(
    (t, m) => ({
      passed: t.passed + n(m, 1),
      failed: t.failed + n(m, 2),
      skipped: t.skipped + n(m, 3)
    }),
    { passed: 0, failed: 0, skipped: 0 }
  )
}

/** `--- PASS: TestX` / `--- FAIL: TestX` / `--- SKIP: TestX` lines (go test -v). */
const goTest: Parser = (text) => {
  const count = (word: string): number =>
    [...text.matchAll(new RegExp(`^\\s*--- ${word}: `, 'gm'))].length
  const passed = count('PASS')
  const failed = count('FAIL')
  if (passed + failed === 0) return null
  return { passed, failed, skipped: count('SKIP') }
}

const PARSERS: Parser[] = [jest, vitest, pytest, cargo, mocha, nodeTest, goTest]

/** The test counts in a command's output, or null when it has no summary line known here. */
export function testCounts(output: string): TestCounts | null {
  // eslint-disable-next-line no-control-regex
  const text = output.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r\n?/g, '\n')
  for (const parse of PARSERS) {
    const counts = parse(text)
    if (counts !== null && counts.passed + counts.failed + counts.skipped > 0) return counts
  }
  return null
}

/** `41 passed`, `1 failed, 40 passed`, `40 passed, 2 skipped`. */
export function formatTestCounts(counts: TestCounts): string {
  const parts: string[] = []
  if (counts.failed > 0) parts.push(`${counts.failed.toLocaleString('en-US')} failed`)
  parts.push(`${counts.passed.toLocaleString('en-US')} passed`)
  if (counts.skipped > 0) parts.push(`${counts.skipped.toLocaleString('en-US')} skipped`)
  return parts.join(', ')
}
