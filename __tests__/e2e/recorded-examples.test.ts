/**
 * The examples in docs/examples are rendered from reports recorded by `npm run record-examples`
 * (real CLI, scripted model, the OS sandbox). This re-records the fast scenarios and compares them
 * with the committed fixtures: a change to what a run reports (a new field, another decision, a
 * different message) fails here until the fixtures are recorded again.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { FIXTURES_DIR } from '../../scripts/preview.js'
import {
  EXAMPLE_WORKSPACE,
  SCENARIOS,
  record,
  type Recording
} from '../../test-support/record-examples.js'
import type { Report } from '../../src/reporting/types.js'
import { describeWithSandbox } from '../../test-support/sandbox-suite.js'

const RERUN = 'Run `npm run record-examples` and `npm run preview`, and commit the result.'

/**
 * Every field path in a value (`tools[].name`, ...), array items merged. Not inside a permission's
 * `request`: that is the CLI's own payload as received, whose fields differ between CLI versions
 * (the e2e suites also run against the oldest supported one).
 */
function shape(value: unknown, at = ''): string[] {
  if (Array.isArray(value)) return [...new Set(value.flatMap((v) => shape(v, `${at}[]`)))].sort()
  if (at === '.permissions[].request') return []
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .flatMap(([k, v]) => [`${at}.${k}`, ...shape(v, `${at}.${k}`)])
      .sort()
  }
  return []
}

/** What a reader of the example relies on: outcome, messages, every call and decision, figures. */
function essentials(r: Report) {
  return {
    status: r.status,
    error: r.error,
    stopReason: r.stopReason,
    summary: r.summary,
    completion: r.completion,
    sandbox: r.sandbox,
    audit: r.audit,
    policy: r.policy,
    todos: r.plan.todos,
    tools: r.tools.map((t) => [t.name, t.outcome, t.target, t.rule, t.error]),
    permissions: r.permissions.map((p) => [p.kind, p.subject, p.decision, p.rule, p.reason]),
    commands: r.commands.map((c) => [c.phase, c.command, c.exitCode, c.timedOut, c.outputTail]),
    metrics: r.metrics,
    toolStats: r.toolStats,
    permissionCounts: r.permissionCounts
  }
}

function committed(name: string): Report {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, `${name}.json`), 'utf8')) as Report
}

describeWithSandbox('recorded examples', () => {
  const recordings = new Map<string, Recording>()

  it.each(['completed', 'verify-failed', 'incomplete'])(
    '%s: recording it again gives the committed fixture',
    async (name) => {
      const scenario = SCENARIOS.find((s) => s.name === name)!
      const recording = await record(scenario)
      recordings.set(name, recording)
      const fixture = committed(name)
      if (recording.report.cliVersion !== fixture.cliVersion) {
        // Another CLI than the one the examples were recorded with (the version matrix): what
        // it reports of itself differs (stopReason, its own tools, the request payloads); the
        // run's outcome and the policy's decisions do not.
        const outcome = (r: Report) => ({
          name,
          status: r.status,
          permissions: r.permissions.map((p) => [p.kind, p.decision, p.rule]),
          commands: r.commands.map((c) => [c.phase, c.command, c.exitCode])
        })
        expect(outcome(recording.report)).toEqual(outcome(fixture))
        return
      }
      expect({ name, fields: shape(recording.report), hint: RERUN }).toEqual({
        name,
        fields: shape(fixture),
        hint: RERUN
      })
      expect({ name, ...essentials(recording.report), hint: RERUN }).toEqual({
        name,
        ...essentials(fixture),
        hint: RERUN
      })
    },
    60_000
  )

  it('a recording names the runner’s paths, never the machine’s, and the run really happened', () => {
    const recording = recordings.get('completed')
    expect(recording).toBeDefined()
    const text = JSON.stringify(recording!.report)
    expect(text).not.toContain(os.homedir() + path.sep)
    expect(text).not.toContain(os.tmpdir() + path.sep)
    expect(text).not.toContain('sk-example') // the provider key
    expect(recording!.report.workingDirectory).toBe(EXAMPLE_WORKSPACE)
    // the raw report is the run's own: its session ran in the real CLI and changed the file
    const raw = recording!.result.report!
    expect(raw.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    expect(raw.cliVersion).toBe(recording!.report.cliVersion)
    expect(raw.metrics.filesModified.map((f) => path.basename(f))).toEqual(['calc.js'])
  })
})
