import { resolveTarget } from '../../src/reporting/target.js'

const repo = { owner: 'acme', repo: 'widgets' }

describe('resolveTarget', () => {
  it.each(['pull_request', 'pull_request_target', 'pull_request_review'])(
    'targets the pull request of a %s event',
    (eventName) => {
      const payload = { action: 'opened', pull_request: { number: 7, title: 'x', extra: {} } }
      expect(resolveTarget({ eventName, payload, repo })).toEqual({
        kind: 'pr',
        number: 7,
        owner: 'acme',
        repo: 'widgets',
        source: 'event'
      })
    }
  )

  it('targets the pull request of an issue_comment made on a pull request', () => {
    const payload = {
      action: 'created',
      issue: { number: 12, pull_request: { url: 'https://api.github.com/x' } },
      comment: { body: 'hi' }
    }
    expect(resolveTarget({ eventName: 'issue_comment', payload, repo })).toMatchObject({
      kind: 'pr',
      number: 12
    })
  })

  it('targets the issue of an issue_comment made on an issue', () => {
    const payload = { issue: { number: 3, pull_request: null }, comment: { body: 'hi' } }
    expect(resolveTarget({ eventName: 'issue_comment', payload, repo })).toMatchObject({
      kind: 'issue',
      number: 3
    })
  })

  it('targets the issue of an issues event', () => {
    const payload = { action: 'labeled', issue: { number: 5, labels: [] } }
    expect(resolveTarget({ eventName: 'issues', payload, repo })).toEqual({
      kind: 'issue',
      number: 5,
      owner: 'acme',
      repo: 'widgets',
      source: 'event'
    })
  })

  it.each(['schedule', 'workflow_dispatch', 'push'])(
    'has no target for %s, with a reason',
    (eventName) => {
      const target = resolveTarget({ eventName, payload: { ref: 'refs/heads/main' }, repo })
      expect(target.kind).toBe('none')
      if (target.kind === 'none') {
        expect(target.reason).toContain(eventName)
        expect(target.reason).toContain('issue-number')
      }
    }
  )

  it('lets the issue-number input override any event', () => {
    expect(
      resolveTarget({ eventName: 'workflow_dispatch', payload: {}, issueNumber: 42, repo })
    ).toEqual({ kind: 'issue', number: 42, owner: 'acme', repo: 'widgets', source: 'input' })
    expect(
      resolveTarget({
        eventName: 'pull_request',
        payload: { pull_request: { number: 7 } },
        issueNumber: 9,
        repo
      })
    ).toMatchObject({ kind: 'issue', number: 9, source: 'input' })
  })

  it('keeps kind pr when the input names the event pull request', () => {
    expect(
      resolveTarget({
        eventName: 'pull_request',
        payload: { pull_request: { number: 7 } },
        issueNumber: 7,
        repo
      })
    ).toMatchObject({ kind: 'pr', number: 7, source: 'input' })
  })

  it('uses the event when the issue-number input is unset', () => {
    expect(
      resolveTarget({ eventName: 'issues', payload: { issue: { number: 5 } }, repo })
    ).toMatchObject({ kind: 'issue', number: 5, source: 'event' })
  })

  it('has no target when the payload lacks the number it needs', () => {
    expect(resolveTarget({ eventName: 'pull_request', payload: {}, repo })).toMatchObject({
      kind: 'none'
    })
    expect(
      resolveTarget({ eventName: 'issues', payload: { issue: { number: 'x' } }, repo })
    ).toMatchObject({ kind: 'none' })
    expect(resolveTarget({ eventName: 'issue_comment', payload: null, repo })).toMatchObject({
      kind: 'none'
    })
  })
})
