/**
 * What a resume accepts of an artifact (issue 31): the zip's one regular file, and a checkpoint
 * whose files stay inside the session folder, under the caps; the /continue prompt.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Checkpoint, RelativePath, markedDigest } from '../../src/checkpoint/format.js'
import { continuationPrompt } from '../../src/checkpoint/continuation.js'
import { redactFile } from '../../src/checkpoint/write.js'
import { singleZipEntry } from '../../src/checkpoint/zip.js'
import { normalizeSecrets } from '../../src/text/safe-text.js'
import { makeZip } from '../../test-support/zip.js'

const MAX = 1024 * 1024

describe('the artifact zip', () => {
  it('gives its one regular file', () => {
    const zip = makeZip([{ name: 'run.checkpoint.json', content: '{"a":1}' }])
    expect(singleZipEntry(zip, MAX)).toEqual({
      name: 'run.checkpoint.json',
      bytes: Buffer.from('{"a":1}')
    })
  })

  it('reads a zip made by another writer (Python zipfile, deflated)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zip-'))
    const file = path.join(dir, 'a.zip')
    execFileSync('python3', [
      '-c',
      `import zipfile; z = zipfile.ZipFile(${JSON.stringify(file)}, 'w', zipfile.ZIP_DEFLATED); z.writestr('x.checkpoint.json', 'hello ' * 1000); z.close()`
    ])
    expect(singleZipEntry(fs.readFileSync(file), MAX).bytes.toString()).toBe('hello '.repeat(1000))
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it.each([
    [
      'two entries',
      makeZip([
        { name: 'a.json', content: '1' },
        { name: 'b.json', content: '2' }
      ]),
      /2 entries/
    ],
    [
      'a link',
      makeZip([{ name: 'a.json', content: '/etc/passwd', mode: 0o120777 }]),
      /not a regular file/
    ],
    ['a path outside', makeZip([{ name: '../a.json', content: '1' }]), /not a plain file name/],
    ['a folder', makeZip([{ name: 'dir/a.json', content: '1' }]), /not a plain file name/],
    ['too large', makeZip([{ name: 'a.json', content: Buffer.alloc(MAX + 1) }]), /larger than/],
    ['not a zip', Buffer.from('hello'), /not a zip file/]
  ])('refuses %s', (_, zip, why) => {
    expect(() => singleZipEntry(zip, MAX)).toThrow(why)
  })

  it('refuses a zip bomb: what inflates past the cap, whatever the header says', () => {
    const zip = makeZip([{ name: 'a.json', content: Buffer.alloc(4 * MAX) }])
    // the header lies: it claims a small file
    const cd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]))
    zip.writeUInt32LE(10, cd + 24)
    expect(() => singleZipEntry(zip, MAX)).toThrow(/does not inflate within|not the size/)
  })
})

describe('the checkpoint format', () => {
  it.each(['../x', '/etc/passwd', 'a/../../x', 'a//b', './a', 'a\\b', 'C:x', ''])(
    'refuses the path %j',
    (p) => {
      expect(RelativePath.safeParse(p).success).toBe(false)
    }
  )

  it.each(['events.jsonl', 'files/notes.md', 'a/b/c.txt'])('takes the path %j', (p) => {
    expect(RelativePath.safeParse(p).success).toBe(true)
  })

  it('refuses unknown fields and a session id that is a path', () => {
    const base = {
      format: 'copilot-autopilot-checkpoint',
      version: 1,
      createdAt: '2026-11-28T00:00:00.000Z',
      repository: 'o/r',
      target: { kind: 'pr', number: 7 },
      run: { runId: '1', status: 'budget-exceeded' },
      chain: [],
      sessionId: 'abc-123',
      startCommit: 'a'.repeat(40),
      patch: '',
      policySha256: null,
      files: [],
      cut: []
    }
    expect(Checkpoint.safeParse(base).success).toBe(true)
    expect(Checkpoint.safeParse({ ...base, sessionId: '../x' }).success).toBe(false)
    expect(Checkpoint.safeParse({ ...base, sandboxConfig: {} }).success).toBe(false)
  })

  it('takes the digest only from the hidden last line', () => {
    const line = `<!-- copilot-autopilot-checkpoint run=42 sha256=${'a'.repeat(64)} -->`
    expect(markedDigest(`report\n${line}\n`)).toEqual({ runId: '42', digest: 'a'.repeat(64) })
    expect(markedDigest(`report\n${line}\nmore text`)).toBeUndefined()
  })
})

describe('redacting a state file', () => {
  const secrets = normalizeSecrets(['ghp_SuperSecretToken1234567890'])
  it('keeps a binary file’s layout, a JSON line valid', () => {
    const binary = Buffer.concat([
      Buffer.from([0xff, 0xfe, 0x00]),
      Buffer.from('ghp_SuperSecretToken1234567890'),
      Buffer.from([0x00])
    ])
    const out = redactFile('session.db', binary, secrets)
    expect(out.length).toBe(binary.length)
    expect(out.toString('latin1')).not.toContain('SuperSecret')
    const line = JSON.stringify({ data: { out: 'key ghp_SuperSecretToken1234567890' } })
    const redacted = redactFile('events.jsonl', Buffer.from(`${line}\n`), secrets).toString()
    expect(JSON.parse(redacted.trim())).toEqual({ data: { out: 'key ***' } })
  })
})

describe('the /continue prompt', () => {
  const from = { runId: '1', status: 'budget-exceeded', stoppedAt: '`max-ai-credits` 300' }
  it('defaults to why the last run stopped, takes the instructions after /continue and +N', () => {
    expect(continuationPrompt('/continue', from)).toMatch(
      /^Continue the task\. The last run stopped because it reached max-ai-credits 300\./
    )
    expect(continuationPrompt('/continue +50 also fix divide()', from)).toBe('also fix divide()')
    expect(continuationPrompt('/copilot fix the docs too', from)).toBe('/copilot fix the docs too')
  })
})
