import { OUTPUT_NAMES, actionOutputs } from '../../src/reporting/outputs.js'
import { sampleReport } from './fixtures.js'

describe('actionOutputs', () => {
  it('gives exactly the declared outputs, as strings', () => {
    const report = sampleReport('completed')
    report.metrics.models.other = {
      requests: 1,
      inputTokens: 5,
      outputTokens: 6,
      cacheReadTokens: 0,
      cacheWriteTokens: 0
    }
    expect(actionOutputs(report, '/tmp/report.json')).toEqual({
      status: 'completed',
      'session-id': 'b6f5c1d2-0000-4000-8000-000000000001',
      summary: 'Fixed `sum()` in `src/sum.ts`; all 13 tests pass.',
      'report-path': '/tmp/report.json',
      'premium-requests': '7',
      'input-tokens': '70005',
      'output-tokens': '7006',
      'lines-added': '12',
      'lines-removed': '3',
      'files-modified': '2',
      'permissions-denied': '2'
    })
    expect(Object.keys(actionOutputs(report, 'r')).sort()).toEqual([...OUTPUT_NAMES].sort())
  })

  it('uses empty strings and zeros for what is missing', () => {
    const report = sampleReport('failed', {
      sessionId: null,
      summary: null,
      permissions: [],
      permissionCounts: {}
    })
    report.metrics = {
      premiumRequests: 0.1 + 0.2,
      apiDurationMs: 0,
      linesAdded: 0,
      linesRemoved: 0,
      filesModified: [],
      models: {}
    }
    expect(actionOutputs(report, 'r')).toMatchObject({
      status: 'failed',
      'session-id': '',
      summary: '',
      'premium-requests': '0.3',
      'input-tokens': '0',
      'files-modified': '0',
      'permissions-denied': '0'
    })
  })

  it('counts denials from the records when a report has no aggregate counts', () => {
    const report = sampleReport('completed')
    delete report.permissionCounts
    expect(actionOutputs(report, 'r')['permissions-denied']).toBe('2')
  })
})
