/**
 * The option tables of src/policy/programs/linters.ts checked against the tools themselves, as
 * installed here (ESLint and Prettier from their `--help`, Jest from the option table its CLI
 * parses with). A table that reads a flag as an option with a value swallows the option after it
 * (`jest --logHeapUsage --outputFile F` hid the write); a table that misses an option with a value
 * or an alias misses what it does (`jest --env ./x.js` loads a module). So, for each tool:
 * - every option the table reads with a value takes one in the tool;
 * - every option the tool reads with a value is in the table (or an alias of one);
 * - what the table knows and this version does not is named here, with the version that has it;
 * - the short letters of options with a value stand for the same option in both.
 */
import { execFileSync } from 'node:child_process'
import path from 'node:path'
import { ESLINT, JEST, PRETTIER } from '../../src/policy/programs/linters.js'

const ROOT = path.resolve(import.meta.dirname, '../..')

interface ToolOptions {
  /** Long options with a value (kebab case). */
  valued: Set<string>
  /** Long options without one. */
  flags: Set<string>
  /** Short letter → long option. */
  short: Map<string, string>
  /** Long alias → long option. */
  aliases: Map<string, string>
}

function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()
}

/**
 * Options from a `--help` text whose option column is `-c, --config path::String` (ESLint) or
 * `--cache-location <path>` (Prettier): a word after the names is the value's type.
 */
function fromHelp(text: string): ToolOptions {
  const options: ToolOptions = {
    valued: new Set(),
    flags: new Set(),
    short: new Map(),
    aliases: new Map()
  }
  for (const line of text.split('\n')) {
    if (!/^ {2}-/.test(line)) continue
    const column = line.trim().split(/\s{2,}/)[0] as string
    const words = column.split(/,?\s+/)
    const longs = words.filter((w) => w.startsWith('--')).map((w) => w.slice(2))
    const shorts = words.filter((w) => /^-[a-zA-Z]$/.test(w)).map((w) => w.slice(1))
    const takesValue = words.some((w) => !w.startsWith('-'))
    // `--no-config-lookup` alone: the option is `config-lookup`, a flag
    const names = longs.map((l) =>
      l.startsWith('no-') && !longs.includes(l.slice(3)) ? l.slice(3) : l
    )
    const name = names.find((n) => !n.startsWith('no-')) ?? names[0]
    if (name === undefined) continue
    ;(takesValue ? options.valued : options.flags).add(name)
    for (const s of shorts) options.short.set(s, name)
  }
  // `--config <path>` and `--no-config` (Prettier): an option with a value, which it can turn off
  for (const name of options.valued) options.flags.delete(name)
  return options
}

function help(script: string): string {
  return execFileSync(process.execPath, [path.join(ROOT, 'node_modules', script), '--help'], {
    encoding: 'utf8',
    cwd: ROOT
  })
}

/** Jest's own option table (yargs), printed by a child node (jest-cli, not this test's Jest). */
function jestOptions(): ToolOptions {
  const script = `import('jest-cli').then(({ yargsOptions }) => console.log(JSON.stringify(yargsOptions)))`
  const table = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: ROOT
    })
  ) as Record<string, { type?: string; alias?: string | string[] }>
  const options: ToolOptions = {
    valued: new Set(),
    flags: new Set(),
    short: new Map(),
    aliases: new Map()
  }
  for (const [camel, o] of Object.entries(table)) {
    const name = kebab(camel)
    ;(o.type === 'boolean' ? options.flags : options.valued).add(name)
    for (const alias of [o.alias ?? []].flat()) {
      if (alias.length === 1) options.short.set(alias, name)
      else options.aliases.set(kebab(alias), name)
    }
  }
  return options
}

type Table = typeof ESLINT

/** The checks, each a list that is empty when the table and the tool agree. */
function compare(table: Table, tool: ToolOptions) {
  const ours = Object.keys(table.values)
  const knows = (n: string) => tool.valued.has(n) || tool.flags.has(n) || tool.aliases.has(n)
  const shortOfValued = [...tool.short].filter(([, long]) => tool.valued.has(long))
  return {
    // read with a value here, a flag in the tool: the option after it would be swallowed
    valuedHereFlagThere: ours.filter((n) => tool.flags.has(n)),
    // a value in the tool, unknown here: its value would be read as an operand, its effect missed
    missing: [...tool.valued].filter((n) => !Object.hasOwn(table.values, n)),
    // aliases the tool reads for an option with a value, and what they stand for here
    aliases: [...tool.aliases]
      .filter(([, long]) => tool.valued.has(long))
      .map(([alias, long]) => [alias, table.aliases?.[alias] === long ? 'same' : long]),
    shortOfValued: shortOfValued.map(([s, long]) => [s, table.short?.[s] === long ? 'same' : long]),
    shortHere: Object.entries(table.short ?? {}).filter(([s, long]) => tool.short.get(s) !== long),
    flagsHere: Object.keys(table.flags ?? {}).filter((n) => !tool.flags.has(n)),
    // what the table knows that this version does not
    unknownThere: ours.filter((n) => !knows(n))
  }
}

/** The lists of `compare` that must be empty for every tool. */
function expectAgreement(result: ReturnType<typeof compare>): void {
  expect(result.valuedHereFlagThere).toEqual([])
  expect(result.missing).toEqual([])
  expect(result.shortHere).toEqual([])
  expect(result.shortOfValued.filter(([, same]) => same !== 'same')).toEqual([])
  expect(result.aliases.filter(([, same]) => same !== 'same')).toEqual([])
}

describe('the linters’ option tables agree with the tools installed here', () => {
  it('ESLint (its --help): options from ESLint 8 and 9’s eslintrc mode are the table’s own', () => {
    const result = compare(ESLINT, fromHelp(help('eslint/bin/eslint.js')))
    expectAgreement(result)
    // checked against eslint@8 and eslint@9 with ESLINT_USE_FLAT_CONFIG=false
    expect(result.unknownThere).toEqual([
      'rulesdir',
      'resolve-plugins-relative-to',
      'ignore-path',
      'env'
    ])
    expect(result.flagsHere).toEqual([])
    expect(result.shortOfValued.map(([s]) => s).sort()).toEqual(['c', 'f', 'o'])
  })

  it('Prettier (its --help)', () => {
    const result = compare(PRETTIER, fromHelp(help('prettier/bin/prettier.cjs')))
    expectAgreement(result)
    expect(result.unknownThere).toEqual([])
    expect(result.flagsHere).toEqual([])
    expect(result.shortOfValued.map(([s]) => s)).toEqual(['h'])
  })

  it('Jest (the option table of jest-cli): --env is an alias, --testPathPattern and --init Jest 29’s', () => {
    const result = compare(JEST, jestOptions())
    expectAgreement(result)
    // checked against jest-cli@29
    expect(result.unknownThere).toEqual(['test-path-pattern'])
    expect(result.flagsHere).toEqual(['init'])
    expect(result.aliases).toEqual([['env', 'same']])
    expect(result.shortOfValued.map(([s]) => s).sort()).toEqual(['c', 't', 'w'])
  })
})
