import { jest } from '@jest/globals'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import * as core from '@actions/core'
import type { AnnotationProperties } from '@actions/core'
import {
  annotationFile,
  displayFile,
  loadPolicy,
  PolicyError,
  policyAnnotations,
  policyIssueSummary,
  type PolicyAnnotation,
  type PolicyIssue
} from '../../src/policy/index.js'
import { checkPolicy } from '../../src/policy/tool.js'
import { tempWorkspace, writeFiles } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
let outside: ReturnType<typeof tempWorkspace>
let app: string

/** Two errors: an unknown key at 4:5, a deny pattern that is not a list at 7:12. */
const INVALID = [
  'version: 1',
  'rules:',
  '  - id: a',
  '    decsion: allow',
  '    shell: [ls]',
  '  - id: b',
  '    decision: maybe',
  '    shell: [git status]',
  ''
].join('\n')

beforeAll(() => {
  ws = tempWorkspace()
  outside = tempWorkspace('policy-outside-')
  app = path.join(ws.dir, 'app')
  writeFiles(ws.dir, { '.github/copilot-policy.yml': INVALID, 'app/package.json': '{}' })
  writeFiles(outside.dir, { 'policy.yml': INVALID })
})
afterAll(() => {
  ws.cleanup()
  outside.cleanup()
})

async function policyError(p: string, workingDirectory: string): Promise<PolicyError> {
  try {
    await loadPolicy({ path: p, workingDirectory })
  } catch (error) {
    if (error instanceof PolicyError) return error
    throw error
  }
  throw new Error(`${p} loaded without error`)
}

function issue(overrides: Partial<PolicyIssue> = {}): PolicyIssue {
  return {
    severity: 'error',
    file: 'policy.yml',
    line: 3,
    column: 7,
    message: 'something is wrong',
    fix: 'make it right',
    ...overrides
  }
}

describe('policyAnnotations for a policy file that fails to load', () => {
  it('annotates each error at its line and column, the file relative to the workspace', async () => {
    // the working directory is a subdirectory; the policy is given relative to it
    const error = await policyError('../.github/copilot-policy.yml', app)
    const annotations = policyAnnotations(error.issues, {
      workspace: ws.dir,
      workingDirectory: app
    })
    expect(annotations).toEqual([
      {
        level: 'error',
        message: expect.stringMatching(
          /^unknown key "decsion" in rule 1\. Fix: did you mean "decision"\?/
        ) as unknown,
        properties: {
          title: 'Copilot policy error',
          file: '.github/copilot-policy.yml',
          startLine: 4,
          startColumn: 5
        }
      },
      {
        level: 'error',
        message: expect.stringMatching(
          /^"decision" in rule 2 must be "allow" or "deny".*\. Fix: /
        ) as unknown,
        properties: {
          title: 'Copilot policy error',
          file: '.github/copilot-policy.yml',
          startLine: 7,
          startColumn: 15
        }
      }
    ])
  })

  it('gives the same file for an absolute policy path', async () => {
    const error = await policyError(path.join(ws.dir, '.github/copilot-policy.yml'), app)
    const [first] = policyAnnotations(error.issues, { workspace: ws.dir, workingDirectory: app })
    expect(first?.properties).toMatchObject({ file: '.github/copilot-policy.yml', startLine: 4 })
  })

  it('is what core.error prints as a workflow command', async () => {
    const error = await policyError('../.github/copilot-policy.yml', app)
    const [first] = policyAnnotations(error.issues, { workspace: ws.dir, workingDirectory: app })
    if (first === undefined) throw new Error('no annotation')
    const properties: AnnotationProperties = first.properties
    const written: string[] = []
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk))
      return true
    })
    try {
      core.error(first.message, properties)
    } finally {
      spy.mockRestore()
    }
    expect(written.join('')).toMatch(
      /^::error title=Copilot policy error,file=\.github\/copilot-policy\.yml,line=4,col=5::unknown key "decsion" in rule 1\. Fix: /
    )
  })

  it('names no file for a policy outside the workspace, and keeps the position in the message', async () => {
    const file = path.join(outside.dir, 'policy.yml')
    const error = await policyError(file, app)
    const [first] = policyAnnotations(error.issues, { workspace: ws.dir, workingDirectory: app })
    expect(first?.properties).toEqual({
      title: 'Copilot policy error',
      startLine: 4,
      startColumn: 5
    })
    expect(first?.message).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:5: unknown key`)
    )
  })
})

describe('policyAnnotations', () => {
  const options = { workspace: '/repo', workingDirectory: '/repo/sub' }

  it('turns message and fix into one message, and a warning into a warning', () => {
    expect(policyAnnotations([issue({ severity: 'warning' })], options)).toEqual<
      PolicyAnnotation[]
    >([
      {
        level: 'warning',
        message: 'something is wrong. Fix: make it right',
        properties: {
          title: 'Copilot policy warning',
          file: 'sub/policy.yml',
          startLine: 3,
          startColumn: 7
        }
      }
    ])
  })

  it.each([
    ['policy.yml', 'sub/policy.yml'],
    ['./policy.yml', 'sub/policy.yml'],
    ['../.github/p.yml', '.github/p.yml'],
    ['/repo/.github/p.yml', '.github/p.yml'],
    ['/repo/sub/../x/./p.yml', 'x/p.yml'],
    ['/elsewhere/p.yml', undefined],
    ['../../p.yml', undefined],
    ['/repo', undefined],
    ['/repository/p.yml', undefined],
    ['built-in:read-only', undefined]
  ])('%s → file %s', (file, expected) => {
    expect(annotationFile(file, options)).toBe(expected)
    const [a] = policyAnnotations([issue({ file })], options)
    expect(a?.properties.file).toBe(expected)
    expect('file' in (a?.properties ?? {})).toBe(expected !== undefined)
  })

  it('takes the working directory for the repository when no workspace is given', () => {
    expect(annotationFile('../p.yml', { workingDirectory: '/repo/sub' })).toBeUndefined()
    expect(annotationFile('.github/p.yml', { workingDirectory: '/repo' })).toBe('.github/p.yml')
  })

  it('gives a built-in policy no file and keeps its position in the message', () => {
    const [a] = policyAnnotations(
      [issue({ file: 'built-in:ci-fix', line: 12, column: 3 })],
      options
    )
    expect(a).toEqual({
      level: 'error',
      message: 'built-in:ci-fix:12:3: something is wrong. Fix: make it right',
      properties: { title: 'Copilot policy error', startLine: 12, startColumn: 3 }
    })
  })

  it('keeps a message on one line', () => {
    const [a] = policyAnnotations([issue({ message: 'two\n  lines', fix: 'a\r\nb' })], options)
    expect(a?.message).toBe('two lines. Fix: a b')
  })

  it('annotates what check finds', async () => {
    const result = await checkPolicy('../.github/copilot-policy.yml', { workingDirectory: app })
    expect(result.exitCode).toBe(1)
    const annotations = policyAnnotations(result.issues ?? [], {
      workspace: ws.dir,
      workingDirectory: app
    })
    expect(annotations.map((a) => [a.properties.file, a.properties.startLine])).toEqual([
      ['.github/copilot-policy.yml', 4],
      ['.github/copilot-policy.yml', 7]
    ])
  })
})

describe('policyIssueSummary', () => {
  it('lists one line per issue, warnings marked', () => {
    expect(
      policyIssueSummary([
        issue(),
        issue({ severity: 'warning', line: 9, column: 1, message: 'hm\nmm' })
      ])
    ).toBe('policy.yml:3:7: something is wrong\npolicy.yml:9:1: warning: hm mm')
  })

  it('names files through relativeFile', () => {
    const options = { workspace: '/repo', workingDirectory: '/repo/sub' }
    expect(
      policyIssueSummary(
        [issue(), issue({ file: 'built-in:read-only' }), issue({ file: '/tmp/p.yml' })],
        (f) => displayFile(f, options)
      )
    ).toBe(
      [
        'sub/policy.yml:3:7: something is wrong',
        'built-in:read-only:3:7: something is wrong',
        '/tmp/p.yml:3:7: something is wrong'
      ].join('\n')
    )
  })

  it('stops after 20 lines', () => {
    const many = Array.from({ length: 23 }, (_, i) => issue({ line: i + 1 }))
    const lines = policyIssueSummary(many).split('\n')
    expect(lines).toHaveLength(21)
    expect(lines[19]).toBe('policy.yml:20:7: something is wrong')
    expect(lines[20]).toBe('… 3 more')
    expect(policyIssueSummary(many.slice(0, 20)).split('\n')).toHaveLength(20)
  })

  it('is empty for no issues', () => {
    expect(policyIssueSummary([])).toBe('')
  })
})

describe('check returns its issues', () => {
  it('with their positions, errors and warnings', async () => {
    writeFileSync(path.join(ws.dir, 'warn.yml'), 'version: 1\ndefault: allow\n')
    const warned = await checkPolicy('warn.yml', { workingDirectory: ws.dir })
    expect(warned.exitCode).toBe(0)
    expect(warned.issues?.every((i) => i.severity === 'warning' && i.file === 'warn.yml')).toBe(
      true
    )
    expect(warned.issues).toContainEqual(
      expect.objectContaining({
        line: 2,
        column: 10,
        message: expect.stringContaining('default') as unknown
      })
    )
    const failed = await checkPolicy('.github/copilot-policy.yml', { workingDirectory: ws.dir })
    expect(failed.issues?.map((i) => [i.severity, i.line, i.column])).toEqual([
      ['error', 4, 5],
      ['error', 7, 15]
    ])
  })

  it('without issues for a clean policy or input it cannot read', async () => {
    const clean = await checkPolicy('built-in:read-only', { workingDirectory: ws.dir })
    expect(clean.exitCode).toBe(0)
    expect(clean).not.toHaveProperty('issues')
    const missing = await checkPolicy('missing.yml', { workingDirectory: ws.dir })
    expect(missing.exitCode).toBe(2)
    expect(missing).not.toHaveProperty('issues')
  })
})
