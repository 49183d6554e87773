/**
 * The program catalog (src/policy/programs/): every program's example command lines get the
 * decision written beside them, through the real engine; every program says how it reads an
 * option its table does not name, and why; no name belongs to two programs.
 */
import type { CompiledPolicy, Decision } from '../../src/policy/index.js'
import { PROGRAMS, programFor } from '../../src/policy/programs/index.js'
import { readFind } from '../../src/policy/programs/find.js'
import { analyzeShell } from '../../src/policy/shell/analyzer.js'
import { initBashParser } from '../../src/policy/wasm.js'
import { compile, shell, tempWorkspace, writeFiles } from './helpers.js'

/** The policy the examples are decided by: any program by name, writes below src/. */
const EXAMPLES_POLICY = `version: 1
default: deny
rules:
  - { id: any-program, decision: allow, shell: ["*"] }
  - { id: sources, decision: allow, write: ["src/**"] }
  - { id: workflows, decision: deny, write: [".github/**"] }
  - { id: read-all, decision: allow, read: ["**"] }
  - { id: docs, decision: allow, url: ["docs.github.com"] }
`

let ws: ReturnType<typeof tempWorkspace>
let policy: CompiledPolicy

beforeAll(async () => {
  await initBashParser()
  ws = tempWorkspace()
  writeFiles(ws.dir, { 'src/a.ts': 'x\n', f: 'a\n', a: 'a\n', 'fix.diff': '' })
  policy = await compile(EXAMPLES_POLICY, ws.dir)
})
afterAll(() => ws.cleanup())

/** Every rule or check id that took part in the decision. */
function ids(decision: Decision): string[] {
  return [decision.rule, ...(decision.segments ?? []).map((s) => s.rule)]
}

const rows = PROGRAMS.flatMap((p) =>
  p.examples.map(([command, decision, check]) => [p.names[0], command, decision, check] as const)
)

describe('the program catalog', () => {
  it('names every program once', () => {
    const names = PROGRAMS.flatMap((p) => p.names)
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([])
    expect(programFor('/usr/bin/gsed')?.names[0]).toBe('sed')
    expect(programFor('not-a-program')).toBeUndefined()
  })

  it.each(PROGRAMS.map((p) => [p.names[0], p] as const))(
    '%s says how it reads unknown options, why, and gives examples',
    (_name, program) => {
      expect(program.unknownOptions.reason.length).toBeGreaterThan(20)
      expect(program.examples.length).toBeGreaterThan(0)
      expect(program.effects !== undefined || program.runs !== undefined).toBe(true)
      const rows = program.options ?? []
      for (const row of rows) expect(row.short ?? row.long).toBeDefined()
      const longs = rows.flatMap((r) => (r.long === undefined ? [] : [r.long]))
      expect(new Set(longs).size).toBe(longs.length)
    }
  )

  it.each(rows)('%s: %j is %s (%s)', (_program, command, expected, check) => {
    const decision = policy.decide(shell(command))
    expect({ command, decision: decision.decision }).toEqual({ command, decision: expected })
    if (check !== undefined) expect(ids(decision).join(' ')).toContain(check)
  })
})

describe("find's one reading", () => {
  it.each([
    ['find . -name -fprint x', ['x'], 0],
    ['find . -fprint x', ['x'], 0],
    ['find . -fprintf x -exec', ['x'], 0],
    ['find . -name -exec rm {} ;', [], 1],
    ['find -D -exec rm {} ;', [], 1],
    ['find . -name "*.ts"', [], 0]
  ])('%s writes %j and runs %d commands', (command, writes, runs) => {
    const item = analyzeShell(command).items.find((i) => i.type === 'command')
    if (item?.type !== 'command') throw new Error('no command')
    const reading = readFind(item.command.words)
    expect(reading.writes.map((w) => w.file.text)).toEqual(writes)
    expect(reading.runs.length).toBe(runs)
  })

  it('records the -fprint write of `find . -name -fprint x` in the analysis', () => {
    const writes = analyzeShell('find . -name -fprint x').items.filter((i) => i.type === 'write')
    expect(writes.length).toBe(1)
  })
})
