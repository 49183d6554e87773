import { dataOf, SessionEvent, ShutdownData } from '../../src/cli/protocol.js'

describe('protocol schemas', () => {
  it('keeps unknown event types as plain events', () => {
    const event = SessionEvent.parse({ type: 'brand.new_event', data: { x: 1 }, extra: true })
    expect(event.type).toBe('brand.new_event')
    expect(dataOf(event, 'session.error')).toBeUndefined()
  })

  it('parses known event data and tolerates extra fields', () => {
    const event = SessionEvent.parse({
      type: 'tool.execution_start',
      data: { toolCallId: 'c1', toolName: 'bash', arguments: { command: 'ls' }, newField: 1 }
    })
    expect(dataOf(event, 'tool.execution_start')).toMatchObject({
      toolCallId: 'c1',
      toolName: 'bash'
    })
  })

  it('ignores known events whose data lacks what we rely on', () => {
    const event = SessionEvent.parse({ type: 'permission.requested', data: { nope: true } })
    expect(dataOf(event, 'permission.requested')).toBeUndefined()
  })

  it('reads shutdown metrics flat or nested under accountingSnapshot', () => {
    const nested = ShutdownData.parse({
      accountingSnapshot: { totalPremiumRequests: 2, codeChanges: { linesAdded: 3 } }
    })
    expect(nested.accountingSnapshot?.totalPremiumRequests).toBe(2)
    expect(nested.accountingSnapshot?.codeChanges?.linesAdded).toBe(3)
    expect(nested.accountingSnapshot?.codeChanges?.filesModified).toEqual([])
  })
})
