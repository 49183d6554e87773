import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import YAML from 'yaml'
import {
  OUTPUT_NAMES,
  WRITE_BACK_OUTPUT_NAMES,
  ROLLUP_OUTPUT_NAMES,
  actionOutputs,
  verifyPassed
} from '../../src/reporting/outputs.js'
import { RUN_STATUSES, type CommandRecord } from '../../src/reporting/types.js'
import { SESSION_ID, sampleReport } from './sample-reports.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

function actionYmlOutputs(): Record<string, { description?: unknown }> {
  const action: unknown = YAML.parse(fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8'))
  if (typeof action !== 'object' || action === null || !('outputs' in action)) {
    throw new Error('action.yml has no outputs')
  }
  return action.outputs as Record<string, { description?: unknown }>
}

const verify = (exitCode: number | null, timedOut = false): CommandRecord => ({
  phase: 'verify',
  command: 'npm test',
  exitCode,
  timedOut,
  durationMs: 10,
  outputTail: ''
})

describe('actionOutputs', () => {
  it('gives every declared output, as strings', () => {
    const report = sampleReport('completed')
    report.metrics.models.other = {
      requests: 1,
      inputTokens: 5,
      outputTokens: 6,
      cacheReadTokens: 0,
      cacheWriteTokens: 0
    }
    const outputs = actionOutputs(report, {
      reportPath: '/tmp/report.json',
      commentUrl: 'https://github.com/o/r/pull/1#issuecomment-2',
      eventsPath: '/tmp/events.jsonl'
    })
    expect(outputs).toEqual({
      status: 'completed',
      'session-id': SESSION_ID,
      summary: report.summary,
      // the same text neutralized (issue 29): the backticks of its code spans kept
      'summary-markdown': outputs['summary-markdown'],
      'report-path': '/tmp/report.json',
      'premium-requests': '7',
      'ai-credits': '41.25',
      'input-tokens': '70005',
      'output-tokens': '7006',
      'lines-added': '12',
      'lines-removed': '3',
      'files-modified': '2',
      'permissions-denied': '2',
      'verify-passed': 'true',
      'comment-url': 'https://github.com/o/r/pull/1#issuecomment-2',
      'events-path': '/tmp/events.jsonl',
      'checkpoint-path': ''
    })
    expect(Object.keys(outputs).sort()).toEqual([...OUTPUT_NAMES].sort())
    expect(outputs['summary-markdown']).toContain('Fixed `sum()`')
  })

  it('uses empty strings and zeros for what is missing', () => {
    const report = sampleReport('failed', {
      sessionId: null,
      summary: null,
      permissions: [],
      permissionCounts: {},
      commands: []
    })
    report.metrics = {
      premiumRequests: 0.1 + 0.2,
      apiDurationMs: 0,
      linesAdded: 0,
      linesRemoved: 0,
      filesModified: [],
      models: {}
    }
    expect(actionOutputs(report, { reportPath: '' })).toMatchObject({
      status: 'failed',
      'session-id': '',
      summary: '',
      'report-path': '',
      'premium-requests': '0.3',
      'input-tokens': '0',
      'files-modified': '0',
      'permissions-denied': '0',
      'verify-passed': '',
      'comment-url': '',
      'events-path': ''
    })
  })

  it('counts denials from the records when a report has no aggregate counts', () => {
    const report = sampleReport('completed')
    delete report.permissionCounts
    report.permissions.push({ ...report.permissions[1]!, requestId: 'p9' })
    expect(actionOutputs(report, { reportPath: 'r' })['permissions-denied']).toBe('3')
  })
})

describe('verifyPassed', () => {
  const withCommands = (commands: CommandRecord[]) => sampleReport('completed', { commands })

  it('is true only when every verify command exited 0 in time', () => {
    expect(verifyPassed(withCommands([verify(0), verify(0)]))).toBe('true')
    expect(verifyPassed(withCommands([verify(0), verify(2)]))).toBe('false')
    expect(verifyPassed(withCommands([verify(0, true)]))).toBe('false')
    expect(verifyPassed(withCommands([verify(null)]))).toBe('false')
  })

  it('is empty when no verify command ran (setup commands do not count)', () => {
    expect(verifyPassed(withCommands([]))).toBe('')
    expect(verifyPassed(withCommands([{ ...verify(1), phase: 'setup' }]))).toBe('')
    expect(verifyPassed(sampleReport('verify-failed'))).toBe('false')
  })

  it('is the last attempt’s result: true after a repair whose second attempt passes', () => {
    const repaired = withCommands([verify(1), { ...verify(0), attempt: 1 }])
    expect(verifyPassed(repaired)).toBe('true')
    expect(actionOutputs(repaired)['verify-passed']).toBe('true')
    const stillFailing = withCommands([verify(1), { ...verify(0), attempt: 1 }])
    stillFailing.commands.push({ ...verify(2), attempt: 2 })
    expect(verifyPassed(stillFailing)).toBe('false')
  })
})

describe('actionOutputs: changes from git', () => {
  it('counts lines and files from report.changes when present (session files never count)', () => {
    const report = sampleReport('completed')
    // the CLI counted its own plan.md: +5 −1 in 2 files for a one-line fix
    report.metrics.linesAdded = 6
    report.metrics.linesRemoved = 2
    report.metrics.filesModified = ['/home/runner/.copilot/session-state/s/plan.md', 'src/a.ts']
    report.changes = {
      base: 'abc123',
      files: [{ path: 'src/a.ts', change: 'modified', added: 1, removed: 1 }]
    }
    expect(actionOutputs(report)).toMatchObject({
      'lines-added': '1',
      'lines-removed': '1',
      'files-modified': '1'
    })
  })

  it('falls back to the CLI’s figures when the changes could not be computed', () => {
    const report = sampleReport('completed')
    report.changes = { base: 'abc123', files: [], error: 'not a git repository' }
    expect(actionOutputs(report)).toMatchObject({ 'lines-added': '12', 'files-modified': '2' })
  })
})

describe('action.yml', () => {
  const outputs = actionYmlOutputs()

  it('declares exactly the outputs the action sets', () => {
    expect(Object.keys(outputs).sort()).toEqual(
      [...OUTPUT_NAMES, ...WRITE_BACK_OUTPUT_NAMES, ...ROLLUP_OUTPUT_NAMES].sort()
    )
  })

  it('describes every run status in the status output', () => {
    const raw = outputs.status?.description
    const description = typeof raw === 'string' ? raw : ''
    expect(description).not.toBe('')
    const missing = RUN_STATUSES.filter(
      (status) => !new RegExp(`(?<![\\w-])${status}(?![\\w-])`).test(description)
    )
    expect(missing).toEqual([])
  })
})
