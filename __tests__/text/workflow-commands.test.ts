import { jest } from '@jest/globals'
import * as core from '@actions/core'
import fc from 'fast-check'
import { COMMAND_MARKER, neutralizeWorkflowCommands } from '../../src/text/workflow-commands.js'
import { isIgnorable, parseCommand, runnerCommands } from '../../test-support/runner-commands.js'

const n = neutralizeWorkflowCommands

/** `output` is `input` with only markers added. */
function onlyMarkersAdded(input: string, output: string): boolean {
  let i = 0
  for (let j = 0; j < output.length; j++) {
    const ch = output[j]
    if (i < input.length && ch === input[i]) i++
    else if (ch !== COMMAND_MARKER) return false
  }
  return i === input.length
}

describe('neutralizeWorkflowCommands', () => {
  it('puts a backslash before a `::` that starts a line', () => {
    expect(n('::error file=README.md,line=1::forged')).toBe(
      '\\::error file=README.md,line=1::forged'
    )
    expect(n('::stop-commands::TOKEN')).toBe('\\::stop-commands::TOKEN')
    expect(n('::')).toBe('\\::')
  })

  it('finds `::` at the start of every line of multi-line text', () => {
    expect(n('done\n::set-output name=status::hacked\nok\n::add-mask::x')).toBe(
      'done\n\\::set-output name=status::hacked\nok\n\\::add-mask::x'
    )
    expect(n('a\r\n::error::x\r\n')).toBe('a\r\n\\::error::x\r\n')
  })

  it('finds `::` after a bare carriage return (the runner ends a line there)', () => {
    expect(n('progress 50%\r::error::x')).toBe('progress 50%\r\\::error::x')
  })

  it('finds `::` after leading whitespace, keeping the indentation', () => {
    expect(n('   ::warning::x')).toBe('   \\::warning::x')
    expect(n('\t \t::notice::x')).toBe('\t \t\\::notice::x')
    expect(n('\u00A0\u3000::error::x')).toBe('\u00A0\u3000\\::error::x')
  })

  it('finds `::` after or between characters ICU ignores (the runner compares with ICU)', () => {
    expect(n('\u200B::error::x')).toBe('\u200B\\::error::x')
    expect(n('\uFEFF::error::x')).toBe('\uFEFF\\::error::x')
    expect(n(':\u200B:error::x')).toBe('\\:\u200B:error::x')
    expect(n(':\u0000:error::x')).toBe('\\:\u0000:error::x')
  })

  it('finds `::` after Unicode line breaks: NEL, LINE and PARAGRAPH SEPARATOR, \\v, \\f', () => {
    for (const br of ['\u0085', '\u2028', '\u2029', '\v', '\f']) {
      expect(n(`text${br}::error::x`)).toBe(`text${br}\\::error::x`)
    }
  })

  it('leaves `::` that does not start a line alone', () => {
    for (const text of ['a::b', 'std::vector', 'see ::error:: here', 'x :: y']) {
      expect(n(text)).toBe(text)
    }
  })

  it('errs on the side of a marker where a line only might start with `::`', () => {
    expect(n(': :x')).toBe('\\: :x')
    expect(n('é::x')).toBe('é\\::x')
    expect(n(':\n:x')).toBe('\\:\n:x')
  })

  it('breaks every legacy `##[`, anywhere in a line', () => {
    expect(n('##[set-output name=status;]hacked')).toBe('##\\[set-output name=status;]hacked')
    expect(n('##[error]x')).toBe('##\\[error]x')
    expect(n('text ##[warning]x and ##[group]y')).toBe('text ##\\[warning]x and ##\\[group]y')
    expect(n('###[x')).toBe('###\\[x')
    expect(n('#\u00AD#[error]x')).toBe('#\u00AD#\\[error]x')
    expect(n('  ##[endgroup]')).toBe('  ##\\[endgroup]')
  })

  it('returns text with nothing to neutralize as it is, and the empty string', () => {
    for (const text of ['', 'plain', '# heading', '[x]', '#[x]', 'a # [b]', 'C:\\path', '%0A::x']) {
      expect(n(text)).toBe(text)
    }
  })

  it('leaves already neutralized text as it is', () => {
    const once = n('::error::x\n##[error]y\n  ::a::b')
    expect(n(once)).toBe(once)
    expect(n('\\::error::x')).toBe('\\::error::x')
    expect(n('##\\[error]x')).toBe('##\\[error]x')
  })

  it('leaves core-escaped text (%0A) as it is: the runner does not unescape plain lines', () => {
    expect(n('a%0A::error::x')).toBe('a%0A::error::x')
    expect(runnerCommands('a%0A::error::x\n')).toEqual([])
  })

  it('no line of its result is a command for the runner, whatever the text', () => {
    const piece = fc.constantFrom(
      ':',
      '::',
      '#',
      '##[',
      '[',
      ']',
      ' ',
      '\t',
      '\r',
      '\n',
      '\r\n',
      '\u200B',
      '\uFEFF',
      '\u00AD',
      '\u0000',
      '\u0085',
      '\u2028',
      '\u00A0',
      '\\',
      'error',
      'set-output name=x',
      'stop-commands',
      'add-mask',
      'a',
      '=',
      ',',
      ';'
    )
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 24 }), (pieces) => {
        const text = pieces.join('')
        const out = n(text)
        expect(runnerCommands(`${out}\n`)).toEqual([])
        expect(n(out)).toBe(out)
        expect(onlyMarkersAdded(text, out)).toBe(true)
      }),
      { numRuns: 3000 }
    )
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const out = n(text)
        expect(runnerCommands(`${out}\n`)).toEqual([])
        expect(onlyMarkersAdded(text, out)).toBe(true)
      }),
      { numRuns: 1000 }
    )
  })

  it('rests on ICU: no printable ASCII character is ignorable, nothing else equals `:`, `#` or `[`', () => {
    // The runner's culture-sensitive StartsWith/IndexOf skip ignorable code points; the
    // neutralizer reasons about printable ASCII only. Checked here for every code point.
    const collator = new Intl.Collator('en', { sensitivity: 'variant' })
    const ignorableAscii: number[] = []
    const lookalikes: number[] = []
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue
      const ch = String.fromCodePoint(cp)
      if (cp >= 0x21 && cp <= 0x7e) {
        if (isIgnorable(cp)) ignorableAscii.push(cp)
        continue
      }
      for (const key of [':', '#', '[', '\\']) {
        if (collator.compare(ch, key) === 0) lookalikes.push(cp)
      }
    }
    expect(ignorableAscii).toEqual([])
    expect(lookalikes).toEqual([])
    // and the zero-width trick really is one: ICU sees `:\u200B:` as `::`
    expect(collator.compare(':\u200B:', '::')).toBe(0)
    expect(parseCommand(':\u200B:error::x')?.name).toBe('error')
  })
})

describe("@actions/core's own commands", () => {
  const hostile =
    'x\n::stop-commands::T\r::set-output name=a::b\r\n##[error]y%0A::add-mask::z\u2028::error::w'

  function written(run: () => void): string {
    let out = ''
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      out += String(chunk)
      return true
    })
    try {
      run()
    } finally {
      spy.mockRestore()
    }
    return out
  }

  it('keep untrusted text in their data and properties: one line, one command each', () => {
    const saved = process.env.GITHUB_OUTPUT
    delete process.env.GITHUB_OUTPUT
    try {
      const properties = {
        title: hostile,
        file: hostile,
        startLine: 1
      }
      const calls: Array<[name: string, run: () => void]> = [
        ['warning', () => core.warning(hostile, properties)],
        ['error', () => core.error(hostile, properties)],
        ['notice', () => core.notice(hostile, properties)],
        ['debug', () => core.debug(hostile)],
        ['group', () => core.startGroup(hostile)],
        ['set-output', () => core.setOutput('name', hostile)],
        ['add-mask', () => core.setSecret(hostile)]
      ]
      for (const [name, run] of calls) {
        const out = written(run)
        const commands = runnerCommands(out)
        expect([name, commands.map((c) => c.name)]).toEqual([name, [name]])
        expect(out.split('\n').filter((line) => line !== '')).toHaveLength(1)
      }
    } finally {
      if (saved !== undefined) process.env.GITHUB_OUTPUT = saved
    }
  })

  it('but core.info writes text as it is: neutralized, it holds no command', () => {
    expect(runnerCommands(written(() => core.info(hostile))).length).toBeGreaterThan(0)
    expect(runnerCommands(written(() => core.info(n(hostile))))).toEqual([])
  })
})
