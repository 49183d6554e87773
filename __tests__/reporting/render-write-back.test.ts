/**
 * The comment and the job summary name what the run leaves for the publish step (issue 23): the
 * patch of the agent's changes and the proposals of the safe-output tools, their text neutralized.
 */
import { renderComment, renderSummary } from '../../src/reporting/render.js'
import type { Report } from '../../src/reporting/types.js'
import { sampleReport } from './sample-reports.js'

const RUN_URL = 'https://github.com/octo/app/actions/runs/42'
const comment = (report: Report): string =>
  renderComment(report, { marker: '<!-- m -->', runUrl: RUN_URL })
const summary = (report: Report): string => renderSummary(report, { runUrl: RUN_URL })

function withWriteBack(): Report {
  return sampleReport('completed', {
    changes: {
      base: 'a'.repeat(40),
      files: [{ path: 'src/sum.ts', change: 'modified', added: 1, removed: 1 }],
      patchPath: '/home/runner/work/_temp/copilot-autopilot-1.patch'
    },
    safeOutputs: {
      offered: ['pull-request', 'labels', 'comment'],
      proposals: [
        { kind: 'pull-request', title: 'Fix sum() @octocat <img src=x>', body: 'b', draft: true },
        { kind: 'labels', labels: ['bug', 'good first issue'] },
        { kind: 'comment', body: 'done' }
      ],
      refused: [{ tool: 'add_labels', reason: 'at most 10 labels over the run' }]
    }
  })
}

describe('what the run leaves for the publish step', () => {
  it('names the patch and each proposal in the comment, titles neutralized', () => {
    const body = comment(withWriteBack())
    const line = body.split('\n').find((l) => l.startsWith('💾 **Kept for the publish step:**'))
    expect(line).toBeDefined()
    expect(line).toContain('the patch (output `patch-path`)')
    expect(line).toContain('(draft)')
    expect(line).toContain('`bug`, `good first issue`')
    expect(line).toContain('1 comment')
    // nobody is pinged, no HTML renders
    expect(line).not.toMatch(/@octocat/)
    expect(line).not.toContain('<img')
    expect(body).toContain('1 proposal refused as invalid')
  })

  it('lists the refused proposals with their reason in the job summary', () => {
    const text = summary(withWriteBack())
    expect(text).toContain('💾 **Kept for the publish step:**')
    expect(text).toContain('Refused proposals (1)')
    expect(text).toContain('at most 10 labels over the run')
  })

  it('says nothing of a publish step when the run left no patch and proposed nothing', () => {
    const report = sampleReport('completed')
    delete report.changes
    delete report.safeOutputs
    expect(comment(report)).not.toContain('publish step')
    expect(summary(report)).not.toContain('publish step')
  })
})
