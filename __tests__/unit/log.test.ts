import { jest } from '@jest/globals'
import { addSecrets, log, redactSecrets } from '../../src/log.js'
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

describe('secrets in the log', () => {
  const secret = 'gw-key-7Hq2LmX9pQ'
  it('masks a registered secret with the runner once, and redacts it and its encoded forms from every line', async () => {
    const registered = await written(() => {
      addSecrets([secret, 'abc'])
      addSecrets([secret])
    })
    expect(runnerCommands(registered).map((c) => [c.name, c.data])).toEqual([['add-mask', secret]])
    const b64 = Buffer.from(`user:${secret}`).toString('base64')
    const line = `GET https://gw.example.com/v1/${secret}/chat ${encodeURIComponent(`${secret}/`)} Basic ${b64}`
    for (const write of ['info', 'warning', 'notice', 'error', 'debug'] as const) {
      const out = await written(() => log[write](line))
      expect(out).not.toContain(secret)
      expect(out).not.toContain(b64)
      expect(out).toContain('https://gw.example.com/v1/***/chat')
    }
    expect(redactSecrets(`x ${secret} y`)).toBe('x *** y')
  })
})
