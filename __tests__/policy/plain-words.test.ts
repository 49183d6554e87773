/**
 * Plain command lines (`git status`, `cat src/a.ts`) are read without the parser: the analysis
 * must be exactly the parser's, for every plain line, whatever program it names.
 */
import fc from 'fast-check'
import { analyzeShell } from '../../src/policy/shell/analyzer.js'
import { plainWords } from '../../src/policy/shell/lines.js'
import { bashParserSync, initBashParser } from '../../src/policy/wasm.js'

beforeAll(async () => {
  await initBashParser()
})

/** Programs the analysis treats specially, and plain ones. */
const PROGRAMS = [
  ...['sh', 'bash', 'env', 'sudo', 'doas', 'xargs', 'timeout', 'nohup', 'nice', 'time', 'exec'],
  ...['command', 'builtin', 'eval', 'trap', 'let', 'read', 'mapfile', 'readarray', 'getopts'],
  ...['printf', 'cd', 'pushd', 'popd', 'source', '.', 'alias', 'hash', 'enable', 'shopt', 'set'],
  ...['git', 'npm', 'npx', 'pnpm', 'yarn', 'sed', 'find', 'tee', 'cp', 'mv', 'rm', 'ln', 'tar'],
  ...['curl', 'wget', 'awk', 'sort', 'dd', 'chmod', 'echo', 'cat', 'ls', 'test', 'cargo', 'gh'],
  ...['select', 'case', 'if', 'then', 'do', 'done', 'function', 'coproc', 'in', 'declare'],
  ...['export', 'local', 'readonly', 'typeset', 'unset', 'stdbuf', 'setsid', 'watch', 'flock']
]
const CHARS = 'abcz09_./:@%+,-'.split('')
const word = fc.oneof(
  fc.constantFrom(
    ...['-c', '-i', '-e', '-n', '--', '-', '.', '..', '/', '/proc/self/environ', '/dev/tcp/h/1'],
    ...['-o', '--output', 'push', 'publish', 'install', '-g', '--prefix', '/etc', 'x', 'HOME'],
    ...['--exec', '-exec', 'e', 'w', '1', 'src/a', '../x', '~', '+x', '@a', '%1', 'a:b', 'a,b']
  ),
  fc.string({ unit: fc.constantFrom(...CHARS), minLength: 1, maxLength: 8 })
)
const blank = fc.constantFrom(' ', '  ', '\t')
const line = fc
  .tuple(
    fc.constantFrom(...PROGRAMS),
    fc.array(fc.tuple(blank, word), { maxLength: 6 }),
    fc.constantFrom('', ' ', '\t')
  )
  .map(([program, args, edge]) => `${edge}${program}${args.map(([b, w]) => b + w).join('')}${edge}`)

describe('plain command lines', () => {
  it('are analyzed as the parser analyzes them', () => {
    const parser = bashParserSync()
    let plain = 0
    fc.assert(
      fc.property(line, (text) => {
        if (plainWords(text) !== undefined) plain++
        expect([text, analyzeShell(text, parser)]).toEqual([text, analyzeShell(text, parser, true)])
      }),
      { numRuns: 3000, seed: 20261123 }
    )
    expect(plain).toBeGreaterThan(1000) // most lines took the plain path
  })

  it('are only lines without quoting, expansion, operators or assignments', () => {
    for (const text of [
      'git status',
      '  npm test  ',
      'cat src/a.ts',
      'git log -1 --format=%H' // `=` is out: not plain
    ]) {
      expect([text, plainWords(text) !== undefined]).toEqual([text, !text.includes('=')])
    }
    for (const text of [
      'echo $HOME',
      "echo 'a'",
      'echo a*',
      'echo ~',
      'x=1',
      'a | b',
      'a > f',
      'a # c',
      'a\nb',
      'a\\ b',
      'echo {a,b}',
      'export PATH',
      'declare x',
      'if x',
      'a;b',
      'a&',
      '(a)',
      '! a',
      ''
    ]) {
      expect([text, plainWords(text)]).toEqual([text, undefined])
    }
  })
})
