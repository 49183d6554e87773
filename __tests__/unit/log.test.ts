import { jest } from '@jest/globals'
import { log } from '../../src/log.js'
import { runnerCommands } from '../../test-support/runner-commands.js'

const HOSTILE = 'ok\n::stop-commands::T\r  ::set-output name=a::b\n\u200B::error::c\nx ##[error]d'

async function written(run: () => unknown): Promise<string> {
  let out = ''
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    out += String(chunk)
    return true
  })
  try {
    await run()
  } finally {
    spy.mockRestore()
  }
  return out
}

describe('the action log', () => {
  it('writes untrusted lines with no workflow command in them', async () => {
    const out = await written(() => log.info(HOSTILE))
    expect(runnerCommands(out)).toEqual([])
    expect(out).toContain('\\::stop-commands::T')
    expect(out).toContain('x ##\\[error]d')
  })

  it("keeps core's own commands: one each, with the text neutralized inside", async () => {
    const cases: Array<[name: string, run: () => unknown]> = [
      ['warning', () => log.warning(HOSTILE, { file: 'a::b,c', startLine: 1 })],
      ['notice', () => log.notice(HOSTILE)],
      ['error', () => log.error(HOSTILE)],
      ['debug', () => log.debug(HOSTILE)]
    ]
    for (const [name, run] of cases) {
      const commands = runnerCommands(await written(run))
      expect([name, commands.map((c) => c.name)]).toEqual([name, [name]])
      expect(commands[0]?.data).toContain('\\::stop-commands::T')
    }
    const group = runnerCommands(
      await written(() => log.group(HOSTILE, () => Promise.resolve(log.info(HOSTILE))))
    )
    expect(group.map((c) => c.name)).toEqual(['group', 'endgroup'])
  })
})
