/**
 * The wall around the commands, as the run records and reports it: the input unconfined-commands,
 * the killed processes folded into the state (redacted, bounded), and what the job summary and the
 * comment say (command lines neutralized).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { readSettings, type InputReader } from '../../src/settings.js'
import { StateRecorder } from '../../src/session/recorder.js'
import { REPORT_LIMITS } from '../../src/session/fold.js'
import { toReport } from '../../src/reporting/report.js'
import { renderComment, renderSummary } from '../../src/reporting/render.js'
import { sampleReport, SECRET } from '../reporting/sample-reports.js'

let workspace: string
beforeEach(() => {
  workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'confinement-'))
})
afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }))

const read = (inputs: Record<string, string>) => {
  const input: InputReader = (name) => inputs[name] ?? ''
  return readSettings(input, { GITHUB_WORKSPACE: workspace, RUNNER_TEMP: workspace })
}

describe('the input unconfined-commands', () => {
  it('names setup or verify commands exactly as written there', () => {
    const settings = read({
      prompt: 'x',
      'setup-commands': 'npm ci\nmake deps',
      'verify-commands': 'npm test',
      'unconfined-commands': '# needs the docker socket\n  make deps  \n\nnpm test'
    })
    expect(settings.unconfinedCommands).toEqual(['make deps', 'npm test'])
    expect(read({ prompt: 'x', 'verify-commands': 'npm test' }).unconfinedCommands).toEqual([])
  })

  it('refuses a line that is no setup or verify command, naming the line and the fix', () => {
    expect(() =>
      read({
        prompt: 'x',
        'verify-commands': 'npm test',
        'unconfined-commands': 'npm test\nnpm  test'
      })
    ).toThrow(
      /Input 'unconfined-commands', line 2: 'npm {2}test' is not one of the setup-commands or verify-commands\. Write the command exactly/
    )
  })
})

function recorder(): StateRecorder {
  return new StateRecorder({
    startedAt: '2026-11-28T10:00:00.000Z',
    model: null,
    policySource: 'p.yml',
    secrets: [SECRET],
    maxAutopilotContinues: 10,
    commandTimeoutMs: 600_000
  })
}

describe('killed processes in the run state', () => {
  it('are folded redacted, clipped and bounded, and reach the report', () => {
    const r = recorder()
    r.record({
      type: 'killed',
      processes: [
        {
          pid: 7,
          command: `curl -H ${SECRET} x`,
          step: 'verify',
          when: 'after-command',
          inWall: true
        },
        { pid: 900, command: 'x'.repeat(2000), step: 'agent', when: 'after-session' }
      ]
    })
    r.record({
      type: 'killed',
      processes: Array.from({ length: REPORT_LIMITS.killedProcesses }, (_, i) => ({
        pid: 1000 + i,
        command: 'sleep 60',
        step: 'setup' as const,
        when: 'after-command' as const
      }))
    })
    const killed = toReport(r.state, { endedAt: '2026-11-28T10:01:00.000Z' }).killedProcesses ?? []
    expect(killed).toHaveLength(REPORT_LIMITS.killedProcesses)
    expect(killed[0]).toEqual({
      pid: 7,
      command: expect.not.stringContaining(SECRET) as unknown,
      step: 'verify',
      when: 'after-command',
      inWall: true
    })
    expect(killed[1]?.command.length).toBeLessThanOrEqual(501)
    expect(killed[1]).not.toHaveProperty('inWall')
  })

  it('a command record keeps how it ran', () => {
    const r = recorder()
    r.record({
      type: 'command',
      record: {
        phase: 'verify',
        command: 'npm test',
        exitCode: 0,
        timedOut: false,
        durationMs: 10,
        outputTail: '',
        confinement: 'sandboxed',
        network: 'none'
      }
    })
    expect(toReport(r.state, { endedAt: '2026-11-28T10:01:00.000Z' }).commands[0]).toMatchObject({
      confinement: 'sandboxed',
      network: 'none'
    })
  })
})

describe('what the summary and the comment say', () => {
  const report = sampleReport('completed', {
    commands: [
      {
        phase: 'setup',
        command: 'npm ci',
        exitCode: 0,
        timedOut: false,
        durationMs: 1000,
        outputTail: '',
        confinement: 'sandboxed',
        network: 'proxy'
      },
      {
        phase: 'verify',
        command: 'make e2e',
        exitCode: 0,
        timedOut: false,
        durationMs: 1000,
        outputTail: '',
        confinement: 'unconfined'
      }
    ],
    killedProcesses: [
      {
        pid: 3,
        command: 'sh -c `x` [link](https://evil.example) @octocat',
        step: 'verify',
        when: 'after-command',
        inWall: true
      },
      { pid: 4242, command: 'sleep 60', step: 'agent', when: 'after-session' }
    ]
  })

  it('the summary names each killed process and how each command ran', () => {
    const summary = renderSummary(report)
    expect(summary).toContain(
      '**Processes:** 🧹 2 processes left running after their step, killed:'
    )
    expect(summary).toContain('(pid 3 in its sandbox, from a verify command)')
    expect(summary).toContain("(pid 4242, from the agent's commands, after the session)")
    expect(summary).toContain("🛡️ sandboxed, the policy's hosts")
    expect(summary).toContain('⚠️ unconfined (`unconfined-commands`)')
    // the command line is a code span: never a link or a mention
    expect(summary).toContain('``sh -c `x` [link](https://evil.example) @octocat``')
  })

  it('the comment says it in one short line', () => {
    const comment = renderComment(report, { marker: '<!-- m -->' })
    expect(comment).toMatch(
      /🧹 \*\*2 processes left running\*\* after their step, killed, e\.g\. `/
    )
    expect(comment).toContain('⚠️ **Unconfined:** `make e2e` ran without the OS sandbox')
  })
})
