/**
 * Issue 30, second adversarial round: tsc under a narrow policy (`npx tsc --noEmit *` allowed,
 * workflows, git internals, package.json, the Makefile and scripts/ protected). Its options that
 * say where it writes are writes there, judged by the write rules; the project it reads and its
 * response files are reads; in tsc's own syntax (one dash or two, any case, the value as the
 * next word, `--build` options), and through npx, npm exec, pnpm and yarn. Each row pairs a
 * denied command with its twin that only moves the target to where the rules allow it. (The
 * protected paths are anchored at the root here: a deny glob that can match anywhere below a
 * directory (a package.json at any depth) denies every write of a whole tree, `--outDir DIR`.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import ts from 'typescript'
import type { CompiledPolicy } from '../../src/policy/index.js'
import {
  TSC_BUILD_VALUES,
  TSC_SHORT,
  TSC_VALUES,
  type TscValue
} from '../../src/policy/programs/tsc.js'
import { compile, shell, tempWorkspace, writeFiles } from './helpers.js'

const NARROW = `version: 1
rules:
  - id: tools
    decision: allow
    shell: ["npx tsc --noEmit *", "npx tsc *", "npx -y tsc *", "npx -- tsc *", "npx tsc@5 *",
            "tsc *", "node_modules/.bin/tsc *", "pnpm exec tsc *", "pnpm tsc *", "yarn tsc *",
            "yarn run tsc *", "npm exec *", "npm x *", "env *", "timeout *"]
  - { id: edits, decision: allow, write: ["**"] }
  - id: protected
    decision: deny
    write: [".github/**", ".git/**", "package.json", "Makefile", "scripts/**", "tsconfig.json"]
`

let ws: ReturnType<typeof tempWorkspace>
let outside: string
let policy: CompiledPolicy
beforeAll(async () => {
  ws = tempWorkspace()
  outside = mkdtempSync(path.join(os.tmpdir(), 'policy-tsc-out-'))
  writeFileSync(path.join(outside, 'tsconfig.json'), '{"files": ["/etc/hostname"]}\n')
  writeFiles(ws.dir, {
    'src/a.ts': 'export const a = 1\n',
    'tsconfig.json': '{}\n',
    'args.txt': '--outDir .github/workflows\n',
    '.github/workflows/ci.yml': 'on: push\n',
    'scripts/build.sh': 'true\n'
  })
  policy = await compile(NARROW, ws.dir)
})
afterAll(() => {
  ws.cleanup()
  rmSync(outside, { recursive: true, force: true })
})

const rel = (): string => path.relative(ws.dir, outside)
const decide = (command: string) => policy.decide(shell(command))
/** [command, decision] for each of the pair, and the deciding rule of the first. */
const pair = (denied: string, allowed: string) => [
  [denied, decide(denied).decision],
  [allowed, decide(allowed).decision]
]

describe('the option table is TypeScript’s', () => {
  /** An option declaration as typescript.js has it (the type is internal to it). */
  interface Declaration {
    name: string
    type: unknown
    isTSConfigOnly?: boolean
    shortName?: string
  }
  const kind = (o: Declaration): TscValue | undefined => {
    if (o.type === 'boolean') return undefined
    if (o.isTSConfigOnly === true) return 'config'
    return o.type === 'list' || o.type === 'listOrElement' ? 'list' : 'next'
  }
  const table = (options: readonly Declaration[]) =>
    Object.fromEntries(
      options.flatMap((o) => {
        const k = kind(o)
        return k === undefined ? [] : [[o.name.toLowerCase(), k]]
      })
    )
  const internal = ts as unknown as {
    optionDeclarations: Declaration[]
    optionsForWatch: Declaration[]
    buildOpts: Declaration[]
  }

  it('names every option with a value, and how it takes the next word', () => {
    expect(TSC_VALUES).toEqual(table([...internal.optionDeclarations, ...internal.optionsForWatch]))
    expect(TSC_BUILD_VALUES).toEqual(table([...internal.buildOpts, ...internal.optionsForWatch]))
  })

  it('knows the short names of the options with a value', () => {
    const shorts = Object.fromEntries(
      internal.optionDeclarations.flatMap((o) =>
        o.shortName !== undefined && kind(o) !== undefined
          ? [[o.shortName, o.name.toLowerCase()]]
          : []
      )
    )
    expect(TSC_SHORT).toEqual(shorts)
  })
})

describe('tsc writes where its output options point', () => {
  it.each([
    [
      'npx tsc --noEmit --generateCpuProfile .github/workflows/ci.yml',
      'npx tsc --noEmit --generateCpuProfile src/cpu.prof'
    ],
    [
      'npx tsc --noEmit -generateCpuProfile .github/workflows/ci.yml',
      'npx tsc --noEmit -generateCpuProfile src/cpu.prof'
    ],
    [
      'npx tsc --noEmit --GENERATECPUPROFILE .github/workflows/ci.yml',
      'npx tsc --noEmit --GENERATECPUPROFILE src/cpu.prof'
    ],
    ['npx tsc --noEmit --generateTrace .github', 'npx tsc --noEmit --generateTrace src/trace'],
    [
      'npx tsc --noEmit --tsBuildInfoFile .git/index',
      'npx tsc --noEmit --tsBuildInfoFile src/.tsbuildinfo'
    ],
    [
      'npx tsc --noEmit -tsbuildinfofile scripts/x',
      'npx tsc --noEmit -tsbuildinfofile src/.tsbuildinfo'
    ],
    ['npx tsc --outDir .github/workflows', 'npx tsc --outDir src/out'],
    ['npx tsc -outdir .github/workflows', 'npx tsc -outdir src/out'],
    ['npx tsc --OutDir scripts', 'npx tsc --OutDir src/out'],
    ['npx tsc --outFile scripts/build.sh', 'npx tsc --outFile src/out.js'],
    ['npx tsc --out .github/x.js', 'npx tsc --out src/out.js'],
    [
      'npx tsc --declaration --declarationDir .github',
      'npx tsc --declaration --declarationDir src/types'
    ],
    // the value is the next word, whatever it looks like; a list option leaves `-x` alone
    ['npx tsc --noEmit --lib --outDir .github', 'npx tsc --noEmit --lib --outDir src/out'],
    ['npx tsc --noEmit false --outDir .github', 'npx tsc --noEmit false --outDir src/out'],
    // --build's options: an option it does not take takes no value (tsc refuses it after the
    // profiler has started)
    ['npx tsc -b --generateTrace .github', 'npx tsc -b --generateTrace src/trace'],
    [
      'npx tsc --build --outDir --generateCpuProfile .github/x',
      'npx tsc --build --outDir --generateCpuProfile src/cpu.prof'
    ],
    // through the package managers and wrappers
    ['tsc --outDir .github', 'tsc --outDir src/out'],
    ['node_modules/.bin/tsc --outDir .github', 'node_modules/.bin/tsc --outDir src/out'],
    ['pnpm exec tsc --outDir .github', 'pnpm exec tsc --outDir src/out'],
    ['pnpm tsc --outDir .github', 'pnpm tsc --outDir src/out'],
    ['yarn tsc --outDir .github', 'yarn tsc --outDir src/out'],
    ['yarn run tsc --outDir .github', 'yarn run tsc --outDir src/out'],
    ['npm exec -- tsc --outDir .github', 'npm exec -- tsc --outDir src/out'],
    ['npm x tsc -- --outDir .github', 'npm x tsc -- --outDir src/out'],
    ['npx -y tsc --outDir .github', 'npx -y tsc --outDir src/out'],
    ['npx -- tsc --outDir .github', 'npx -- tsc --outDir src/out'],
    ['npx tsc@5 --outDir .github', 'npx tsc@5 --outDir src/out'],
    ['env npx tsc --outDir .github', 'env npx tsc --outDir src/out'],
    [
      'timeout 60 npx tsc --noEmit --generateCpuProfile .github/x',
      'timeout 60 npx tsc --noEmit --generateCpuProfile src/cpu.prof'
    ]
  ])('%s is denied (%s: allowed)', (command, allowed) => {
    const denied = decide(command)
    expect([command, denied.decision, denied.rule]).toEqual([command, 'deny', 'protected'])
    expect([allowed, decide(allowed).decision]).toEqual([allowed, 'allow'])
  })

  it('writes outside the working directory as the write rules say (HOME, /srv)', () => {
    expect(pair('npx tsc --outDir ~/out', 'npx tsc --outDir out')).toEqual([
      ['npx tsc --outDir ~/out', 'deny'],
      ['npx tsc --outDir out', 'allow']
    ])
    expect(decide('npx tsc --noEmit --generateTrace /srv/trace').rule).toBe('outside-workspace')
  })

  it('writes tsconfig.json with --init, and cleans what configurations name with --build --clean', () => {
    expect([decide('npx tsc --init').decision, decide('npx tsc --init').rule]).toEqual([
      'deny',
      'protected'
    ])
    expect(decide('npx tsc --build --clean').rule).toBe('writes-unknown')
    expect(decide('npx tsc -B --CLEAN').rule).toBe('writes-unknown')
    expect(decide('npx tsc --build --verbose').decision).toBe('allow')
  })

  it('files named without a place to write: each file of the program, imports included, is written next to itself', () => {
    // `tsc src/a.ts` where a.ts imports '../.github/actions/x.ts' writes .github/actions/x.js
    expect(decide('npx tsc src/a.ts').rule).toBe('writes-unknown')
    expect(decide('npx tsc --noEmit false src/a.ts').rule).toBe('writes-unknown')
    expect(decide('npx tsc --strict src/a.ts src/b.ts').rule).toBe('writes-unknown')
    expect(decide('npx tsc --noEmit src/a.ts').decision).toBe('allow')
    expect(decide('npx tsc --noEmit true src/a.ts').decision).toBe('allow')
    expect(decide('npx tsc --outDir out src/a.ts').decision).toBe('allow')
    expect(decide('npx tsc --outFile out/all.js src/a.ts').decision).toBe('allow')
    expect(decide('npx tsc --outDir .github src/a.ts').decision).toBe('deny')
  })

  it('reads `--outDir=DIR` as the unknown option tsc refuses, and writes nothing', () => {
    expect(pair('npx tsc --outDir .github', 'npx tsc --outDir=.github')).toEqual([
      ['npx tsc --outDir .github', 'deny'],
      ['npx tsc --outDir=.github', 'allow']
    ])
  })
})

describe('tsc reads the project, the response file and the type roots it is told', () => {
  // a project lists the files tsc reads (`files`, `include`, `extends`): one outside the working
  // directory reads files the policy cannot see, whatever the read rules say of the project
  it.each([
    ['npx tsc --noEmit -p <out>/tsconfig.json', 'npx tsc --noEmit -p tsconfig.json'],
    ['npx tsc --noEmit --project <out>', 'npx tsc --noEmit --project .'],
    ['npx tsc --noEmit -P <out>', 'npx tsc --noEmit -P .'],
    ['npx tsc --noEmit -PROJECT <out>/tsconfig.json', 'npx tsc --noEmit -project tsconfig.json'],
    ['npx tsc -b <out>', 'npx tsc -b .'],
    ['npx tsc --build . <out>', 'npx tsc --build .'],
    ['npx tsc --noEmit -p ~/project', 'npx tsc --noEmit -p ./tsconfig.json']
  ])('%s reads files the policy cannot see (%s: allowed)', (template, allowed) => {
    const command = template.replace('<out>', rel())
    const decision = decide(command)
    const rules = [decision.rule, ...(decision.segments ?? []).map((s) => s.rule)]
    expect([command, decision.decision, rules.includes('reads-unknown')]).toEqual([
      command,
      'deny',
      true
    ])
    expect([allowed, decide(allowed).decision]).toEqual([allowed, 'allow'])
  })

  it.each([
    ['npx tsc --noEmit --typeRoots <out>,node_modules/@types', '--typeRoots node_modules/@types'],
    ['npx tsc --noEmit --typeroots node_modules/@types,<out>', '--typeRoots node_modules/@types'],
    ['npx tsc --noEmit --baseUrl ~/lib', '--baseUrl src'],
    ['npx tsc --noEmit -baseurl /srv/lib', '--baseUrl src']
  ])('%s reads there (npx tsc --noEmit %s: allowed)', (template, allowed) => {
    const command = template.replace('<out>', rel())
    expect(pair(command, `npx tsc --noEmit ${allowed}`)).toEqual([
      [command, 'deny'],
      [`npx tsc --noEmit ${allowed}`, 'allow']
    ])
  })

  it('reads a project outside the working directory as unknown files, even where a rule allows the project', async () => {
    const reading = await compile(
      `${NARROW}  - { id: shared, decision: allow, read: ["${outside}/**", "${outside}"] }\n`,
      ws.dir
    )
    const command = `npx tsc --noEmit -p ${outside}/tsconfig.json`
    expect(reading.decide(shell(command)).rule).toBe('reads-unknown')
  })

  it.each([
    ['npx tsc --noEmit @args.txt', 'npx tsc --noEmit args.txt'],
    ['npx tsc @args.txt --noEmit', 'npx tsc args.txt --noEmit'],
    ['npx tsc -b @args.txt', 'npx tsc -b .']
  ])('%s reads options the policy cannot see (%s: allowed)', (command, allowed) => {
    expect([command, decide(command).rule]).toEqual([command, 'dynamic-argument'])
    expect([allowed, decide(allowed).decision]).toEqual([allowed, 'allow'])
  })

  it('denies a word only known at run time where an option could stand', () => {
    expect(pair('npx tsc --noEmit "$X"', 'npx tsc --noEmit')).toEqual([
      ['npx tsc --noEmit "$X"', 'deny'],
      ['npx tsc --noEmit', 'allow']
    ])
    expect(decide('npx tsc --noEmit "@$F"').rule).toBe('dynamic-argument')
    expect(decide('npx tsc --noEmit --lib "$L"').rule).toBe('dynamic-argument')
    expect(decide('npx tsc --outDir "$D"').decision).toBe('deny')
  })
})
