import { LiveComment, renderProgress, type Progress } from '../../src/reporting/progress.js'

const base: Progress = {
  startedAt: '2026-11-23T10:00:00.000Z',
  now: Date.parse('2026-11-23T10:03:05.000Z'),
  phase: 'agent',
  todos: [],
  asks: [],
  denied: 0
}

describe('renderProgress', () => {
  it('shows the phase, the elapsed time, the intent, the todos with their state and denials', () => {
    const body = renderProgress({
      ...base,
      intent: 'Fixing sum()',
      todos: [
        { id: 'a', title: 'Write the fix', status: 'done' },
        { id: 'b', title: 'Add a test', status: 'in_progress' },
        { id: 'c', title: 'Run the suite', status: 'pending' }
      ],
      denied: 2,
      runUrl: 'https://github.com/o/r/actions/runs/1'
    })
    expect(body).toMatch(/^### ⏳ Copilot is working on it · the agent is working/)
    expect(body).toContain('⏱ 3 m 05 s')
    expect(body).toContain('🚫 2 requests denied so far')
    expect(body).toContain('**Now:** Fixing sum()')
    expect(body).toContain('**Todos** · 1 of 3 done')
    expect(body).toContain(
      '- [x] Write the fix\n- [ ] Add a test _(in progress)_\n- [ ] Run the suite _(pending)_'
    )
  })

  it('names the questions waiting for a maintainer', () => {
    const body = renderProgress({
      ...base,
      asks: [{ id: 'a1b2c3', kind: 'shell', subject: 'npm install left-pad', rule: 'deps' }]
    })
    expect(body).toContain('question `a1b2c3`')
    // Answering is done on the question, which shows the request in full, not here.
    expect(body).not.toContain('/approve')
  })

  it('neutralizes what the agent wrote and redacts secrets', () => {
    const body = renderProgress(
      {
        ...base,
        intent: 'Pinging @octo/team about #12 with ghp_secretsecret',
        todos: [{ id: '1', title: '</details><img src=x>', status: 'pending' }]
      },
      ['ghp_secretsecret']
    )
    expect(body).not.toContain('ghp_secretsecret')
    expect(body).not.toMatch(/(^|\s)@octo\/team/)
    expect(body).not.toContain('<img')
    expect(body).not.toContain('</details>')
  })
})

describe('LiveComment', () => {
  const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

  it('publishes at once, then at most once per interval, always the latest state', async () => {
    const published: string[] = []
    let state = 'one'
    const live = new LiveComment({
      publish: (body) => {
        published.push(body)
        return Promise.resolve()
      },
      render: () => state,
      intervalMs: 100,
      log: { debug: () => undefined, warning: () => undefined }
    })
    live.changed()
    await tick(10)
    expect(published).toEqual(['one'])
    state = 'two'
    live.changed()
    state = 'three'
    live.changed()
    await tick(20)
    expect(published).toEqual(['one']) // throttled
    await tick(120)
    expect(published).toEqual(['one', 'three'])
    await live.stop()
  })

  it('a failing update never fails the run, and stop() ends the updates', async () => {
    const warnings: string[] = []
    let calls = 0
    const live = new LiveComment({
      publish: () => {
        calls++
        return Promise.reject(new Error('HTTP 502'))
      },
      render: () => 'x',
      intervalMs: 10,
      log: { debug: () => undefined, warning: (line) => warnings.push(line) }
    })
    live.changed()
    await tick(5)
    await live.stop()
    live.changed()
    await tick(30)
    expect(calls).toBe(1)
    expect(warnings).toEqual(['Could not update the progress comment: HTTP 502'])
  })
})
