/**
 * The fixture reports behind docs/examples are recordings (`npm run record-examples`), not written
 * by hand: one per scenario, each with the status its run must end with, normalized the way the
 * recorder normalizes. __tests__/e2e/recorded-examples.test.ts re-records some and compares.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { FIXTURES_DIR, loadFixtures } from '../../scripts/preview.js'
import {
  EXAMPLE_STARTED_AT,
  EXAMPLE_WORKSPACE,
  SCENARIOS
} from '../../test-support/record-examples.js'

describe('the recorded fixture reports', () => {
  const fixtures = loadFixtures() // each parses as a Report (the schema in scripts/preview.ts)

  it('are one per scenario of the recorder, none more', () => {
    expect(fixtures.map((f) => f.name).sort()).toEqual(SCENARIOS.map((s) => s.name).sort())
  })

  it.each(SCENARIOS.map((s) => [s.name, s] as const))(
    '%s: ended as its scenario must, and is normalized as the recorder writes it',
    (name, scenario) => {
      const { report } = fixtures.find((f) => f.name === name)!
      expect(report.status).toBe(scenario.status)
      expect(report.version).toBe(1)
      expect(report.startedAt).toBe(EXAMPLE_STARTED_AT)
      expect(report.durationMs).toBe(scenario.durationMs)
      expect(report.workingDirectory).toBe(EXAMPLE_WORKSPACE)
      expect(report.policy.source).toBe(`${EXAMPLE_WORKSPACE}/.github/copilot-policy.yml`)
      const text = fs.readFileSync(path.join(FIXTURES_DIR, `${name}.json`), 'utf8')
      expect(text).not.toContain('autopilot-e2e-') // the recorder's temporary directories
      expect(text).not.toContain(`${os.homedir()}/`)
      expect(text).not.toContain('sk-example') // the scripted provider's key
      // a session ran in the real CLI, except where the policy stopped the run before one
      if (name === 'bad-policy') expect(report.sessionId).toBeNull()
      else expect(report.cliVersion).toMatch(/^\d+\.\d+\.\d+/)
    }
  )
})
