import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { redactEventLine, writeRedactedEvents } from '../../src/reporting/events-file.js'
import { normalizeSecrets } from '../../src/text/safe-text.js'

const SECRET = 'gw-key-7Hq2LmX9pQ"\\/x'
const secrets = normalizeSecrets([SECRET])
let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'events-file-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

/** Every form of the secret a reader of the file could find. */
function leaks(text: string): string[] {
  const forms = [
    SECRET,
    JSON.stringify(SECRET).slice(1, -1),
    encodeURIComponent(SECRET),
    Buffer.from(SECRET).toString('base64').slice(0, 20),
    Buffer.from(SECRET).toString('base64url').slice(0, 20)
  ]
  return forms.filter((form) => text.includes(form))
}

describe('the events file', () => {
  it('redacts every string of each JSON line, encoded forms too, and keeps one line per event', () => {
    const event = {
      type: 'session.error',
      data: {
        message: `fetch failed: https://gw.example.com/v1/${SECRET}/chat`,
        [SECRET]: Buffer.from(`user:${SECRET}`).toString('base64'),
        nested: [{ url: `https://h/?k=${encodeURIComponent(SECRET)}` }],
        n: 3
      }
    }
    const line = redactEventLine(JSON.stringify(event), secrets)
    expect(line).not.toContain('\n')
    expect(leaks(line)).toEqual([])
    const parsed = JSON.parse(line) as { type: string; data: Record<string, unknown> }
    expect(parsed.type).toBe('session.error')
    expect(parsed.data.n).toBe(3)
    expect(parsed.data.message).toBe('fetch failed: https://gw.example.com/v1/***/chat')
    expect(redactEventLine(`not json ${SECRET}`, secrets)).toBe('not json ***')
  })

  it('writes a redacted copy, private to the user', async () => {
    const source = path.join(dir, 'events.jsonl')
    const events = [
      { type: 'user.message', data: { content: `use ${SECRET}` } },
      { type: 'tool.execution_complete', data: { result: { content: SECRET.repeat(3) } } }
    ]
    fs.writeFileSync(
      source,
      `${events.map((e) => JSON.stringify(e)).join('\n')}\n{truncated ${SECRET}`
    )
    const target = path.join(dir, 'out', 'events.jsonl')
    await expect(writeRedactedEvents(source, target, secrets)).resolves.toBe(target)
    const text = fs.readFileSync(target, 'utf8')
    expect(leaks(text)).toEqual([])
    expect(text.split('\n')).toEqual([
      JSON.stringify({ type: 'user.message', data: { content: 'use ***' } }),
      JSON.stringify({
        type: 'tool.execution_complete',
        data: { result: { content: '*********' } }
      }),
      '{truncated ***',
      ''
    ])
    expect(fs.statSync(target).mode & 0o777).toBe(0o600)
  })

  it('throws, leaving no file, when the source or the target cannot be used', async () => {
    const target = path.join(dir, 'events.jsonl')
    await expect(writeRedactedEvents(path.join(dir, 'missing'), target, secrets)).rejects.toThrow()
    expect(fs.existsSync(target)).toBe(false)
    const source = path.join(dir, 'source.jsonl')
    fs.writeFileSync(source, '{}\n')
    fs.writeFileSync(path.join(dir, 'file'), '')
    await expect(
      writeRedactedEvents(source, path.join(dir, 'file', 'events.jsonl'), secrets)
    ).rejects.toThrow()
  })
})
