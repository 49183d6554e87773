import type { CompiledPolicy } from '../../src/policy/index.js'
import { feedbackFor } from '../../src/policy/index.js'
import { compile, EXAMPLE_POLICY, shell, tempWorkspace } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
let policy: CompiledPolicy

beforeAll(async () => {
  ws = tempWorkspace()
  policy = await compile(EXAMPLE_POLICY, ws.dir)
})
afterAll(() => ws.cleanup())

const verdict = (command: string) => policy.decide(shell(command)).decision

describe('shell: the must-haves', () => {
  it('denies git push origin main by the git push* deny', () => {
    const d = policy.decide(shell('git push origin main'))
    expect(d).toMatchObject({ decision: 'deny', rule: 'no-push', kind: 'shell' })
    expect(d.subject).toBe('git push origin main')
    expect(feedbackFor(d)).toBe(`Denied by policy rule "no-push": pushing is the workflow's job`)
  })

  it('denies npm test && git push by its one denied segment', () => {
    const d = policy.decide(shell('npm test && git push'))
    expect(d).toMatchObject({ decision: 'deny', rule: 'no-push' })
    expect(d.segments).toEqual([
      expect.objectContaining({ text: 'npm test', decision: 'allow', rule: 'tests' }),
      expect.objectContaining({ text: 'git push', decision: 'deny', rule: 'no-push' }),
      // git push also reaches the network, a built-in check of its own
      expect.objectContaining({ text: 'git push', decision: 'deny', rule: 'network' })
    ])
    expect(feedbackFor(d)).toContain('(in: git push)')
  })

  it('allows npm test && git status', () => {
    const d = policy.decide(shell('npm test && git status'))
    expect(d).toMatchObject({ decision: 'allow', rule: 'tests' })
    expect(d.segments?.map((s) => s.decision)).toEqual(['allow', 'allow'])
  })

  it('denies echo x > /tmp/f unless /tmp writes are allowed', async () => {
    const withEcho = EXAMPLE_POLICY + `  - { id: echo, decision: allow, shell: ["echo *"] }\n`
    const strict = await compile(withEcho, ws.dir)
    const d = strict.decide(shell('echo x > /tmp/f'))
    expect(d).toMatchObject({ decision: 'deny', rule: 'outside-workspace' })
    expect(d.segments?.[1]).toMatchObject({ text: '> /tmp/f', decision: 'deny' })
    const tmp = await compile(
      withEcho + `  - { id: tmp, decision: allow, write: ["/tmp/**"] }\n`,
      ws.dir
    )
    expect(tmp.decide(shell('echo x > /tmp/f'))).toMatchObject({ decision: 'allow' })
  })

  it('denies bash -c "git push" (the inner command)', async () => {
    const p = await compile(EXAMPLE_POLICY + `  - { decision: allow, shell: ["bash *"] }\n`, ws.dir)
    const d = p.decide(shell('bash -c "git push"'))
    expect(d).toMatchObject({ decision: 'deny', rule: 'no-push' })
    expect(verdict('bash -c "git push"')).toBe('deny')
  })

  it('denies $(echo git) push as a dynamic command', () => {
    const d = policy.decide(shell('$(echo git) push'))
    expect(d).toMatchObject({ decision: 'deny', rule: 'dynamic-command' })
  })

  it('needs write permission for tee arguments', async () => {
    const p = await compile(
      EXAMPLE_POLICY + `  - { decision: allow, shell: ["cat *", "tee *"] }\n`,
      ws.dir
    )
    const d = p.decide(shell('cat a | tee out.txt'))
    expect(d.decision).toBe('deny')
    expect(d.segments?.find((s) => s.text === 'tee: out.txt')).toMatchObject({
      decision: 'deny',
      rule: 'default'
    })
    expect(p.decide(shell('cat a | tee src/out.txt')).decision).toBe('allow')
    expect(p.decide(shell('cat a | tee -a README.md')).decision).toBe('allow')
    expect(p.decide(shell('cat a | tee src/ok .github/workflows/x.yml')).decision).toBe('deny')
  })
})

describe('shell: every simple command is checked', () => {
  const allowAll = `version: 1
rules:
  - { id: no-push, decision: deny, reason: no, shell: ["git push*"] }
  - { id: no-rm, decision: deny, shell: ["rm -rf*"] }
  - { id: all, decision: allow, shell: ["*"] }
  - { id: all-writes, decision: allow, write: ["**"] }
`
  let p: CompiledPolicy
  beforeAll(async () => {
    p = await compile(allowAll, ws.dir)
  })

  it.each([
    'git push',
    'npm test; git push',
    'npm test || git push',
    'npm test | git push',
    'npm test\ngit push',
    '(git push)',
    '{ git push; }',
    'echo $(git push)',
    'echo `git push`',
    'echo "$(git push)"',
    'cat <(git push)',
    'diff <(ls) >(git push)',
    'sh -c "git push"',
    "bash -lc 'npm test && git push'",
    'eval git push',
    'eval "git push --force"',
    'env git push',
    'env -i FOO=1 git push',
    'xargs git push < list',
    'echo push | xargs git',
    'timeout 10 git push',
    'timeout -s KILL 10 git push',
    'nohup git push &',
    'nice -n 5 git push',
    'nice -5 git push',
    'sudo git push',
    'sudo -u root git push',
    'command git push',
    'exec git push',
    'time git push',
    'builtin eval git push',
    'stdbuf -oL git push',
    'find . -exec git push \\;',
    'find . -name x -execdir git push {} +',
    'watch -n 5 git push',
    'flock /tmp/l git push',
    'flock /tmp/l -c "git push"',
    'trap "git push" EXIT',
    'if true; then git push; fi',
    'for i in 1; do git push; done',
    'while false; do git push; done',
    'case x in x) git push;; esac',
    'f() { git push; }',
    '! git push',
    'git push &',
    'FOO=1 git push',
    'A=1 B=2 git push origin',
    'x=$(git push)',
    'export X=$(git push)',
    'echo > "$(git push)"',
    'cat <<EOF\n$(git push)\nEOF',
    '/usr/bin/git push',
    './git push',
    '\\git push',
    'g"i"t push',
    "'git' 'push'",
    "$'git' push",
    "$'\\x67it' push",
    'git pu\\\nsh',
    'git "pu"sh',
    'git $SUBCOMMAND',
    'git pu$X',
    'git {push,status}',
    'git pus?',
    'git p*',
    'rm -rf /',
    'sh -c "sh -c \\"git push\\""',
    'bash -c "eval \\"git push\\""'
  ])('denies %j', (command) => {
    expect(p.decide(shell(command)).decision).toBe('deny')
  })

  it.each([
    'npm test',
    'npm test && git status',
    'git status --short',
    'echo "git push"',
    "echo 'git push'",
    'grep -r "git push" .',
    'cat <<EOF\ngit push\nEOF',
    "cat <<'EOF'\n$(git push)\nEOF",
    'echo push | tr a-z A-Z',
    'git log --grep=push',
    'sh -c "npm test"',
    'x=1; echo $x',
    'echo done > /dev/null 2>&1',
    'npm test > src/test.log'
  ])('allows %j', (command) => {
    expect(p.decide(shell(command)).decision).toBe('allow')
  })

  it('knows git pull reaches the network: only a rule naming the exact command allows it', async () => {
    expect(p.decide(shell('git pull'))).toMatchObject({ decision: 'deny', rule: 'network' })
    const exact = await compile(
      `version: 1\nrules:\n  - { id: pull, decision: allow, shell: ["git pull"] }\n`,
      ws.dir
    )
    expect(exact.decide(shell('git pull'))).toMatchObject({ decision: 'allow', rule: 'pull' })
    expect(exact.decide(shell('git pull evil'))).toMatchObject({ decision: 'deny' })
  })

  it('checks a deny rule against the command with its path stripped', () => {
    expect(p.decide(shell('/usr/bin/git push'))).toMatchObject({ rule: 'no-push' })
  })

  it('checks deny rules that may match arguments only known at run time', () => {
    const d = p.decide(shell('git $SUBCOMMAND origin'))
    expect(d).toMatchObject({ decision: 'deny', rule: 'no-push' })
    // an argument after the known prefix cannot match a deny rule that needs other text
    expect(p.decide(shell('npm test -- --testNamePattern=$ARGS')).decision).toBe('allow')
  })
})

describe('shell: dynamic and unparsable commands', () => {
  it.each([
    ['$(echo git) push', 'dynamic-command'],
    ['$CMD', 'dynamic-command'],
    ['"$CMD" --version', 'dynamic-command'],
    ['${CMD} x', 'dynamic-command'],
    ['`echo git` push', 'dynamic-command'],
    ['for c in git; do $c push; done', 'dynamic-command'],
    ['sh -c "$SCRIPT"', 'dynamic-command'],
    ['eval "$X"', 'dynamic-command'],
    ['echo ${x@P}', 'evaluates-code'],
    ['npm test && (', 'unparsable'],
    ['echo "unterminated', 'unparsable'],
    ['if true; then', 'unparsable'],
    ['coproc x { git push; }', 'unparsable'],
    ['   ', 'invalid-request']
  ])('denies %j (%s)', async (command, rule) => {
    const p = await compile(
      `version: 1\nrules:\n  - { decision: allow, shell: ["*"] }\n  - { id: no-push, decision: deny, shell: ["git push*"] }\n`,
      ws.dir
    )
    expect(p.decide(shell(command))).toMatchObject({ decision: 'deny', rule })
  })

  it('allows a dynamic command only when a rule names the whole command text', async () => {
    const p = await compile(
      `version: 1
rules:
  - { id: build, decision: allow, shell: ["$CC -o app main.c", "echo *"] }
`,
      ws.dir
    )
    expect(p.decide(shell('$CC -o app main.c'))).toMatchObject({ decision: 'allow', rule: 'build' })
    expect(p.decide(shell('$CC -o app other.c')).decision).toBe('deny')
    expect(p.decide(shell('$CC -o app main.c; $CC -o x'))).toMatchObject({
      decision: 'deny',
      rule: 'dynamic-command'
    })
  })

  it('does not let a wildcard allow override a dynamic command', async () => {
    const p = await compile(`version: 1\nrules:\n  - { decision: allow, shell: ["*"] }\n`, ws.dir)
    expect(p.decide(shell('$(echo git) push')).decision).toBe('deny')
  })

  it('allows an unparsable command only by its exact text, and never past a deny', async () => {
    const p = await compile(
      `version: 1
rules:
  - { id: odd, decision: allow, shell: ["echo a <> b"] }
  - { id: no-odd, decision: deny, shell: ["weird <> *"] }
  - { id: weird, decision: allow, shell: ["weird <> x"] }
`,
      ws.dir
    )
    expect(p.decide(shell('echo a <> b'))).toMatchObject({ decision: 'allow', rule: 'odd' })
    expect(p.decide(shell('weird <> x'))).toMatchObject({ decision: 'deny' })
  })
})

describe('shell: redirections', () => {
  let p: CompiledPolicy
  beforeAll(async () => {
    p = await compile(
      `version: 1
rules:
  - { decision: allow, shell: ["*"] }
  - { id: src, decision: allow, write: ["src/**", "logs/**"] }
  - { id: gh, decision: deny, write: [".github/**"] }
`,
      ws.dir
    )
  })

  it.each([
    ['echo > src/a', 'allow'],
    ['echo >> src/a', 'allow'],
    ['echo 2> logs/err', 'allow'],
    ['echo &> logs/all', 'allow'],
    ['echo &>> logs/all', 'allow'],
    ['echo >| src/a', 'allow'],
    ['echo >& logs/both', 'allow'],
    ['echo 2>&1', 'allow'],
    ['echo >&2', 'allow'],
    ['echo > /dev/null', 'allow'],
    ['echo 2>/dev/null', 'allow'],
    ['echo > /dev/stderr', 'allow'],
    ['echo < README.md', 'allow'],
    ['echo > other', 'deny'],
    ['echo > .github/workflows/ci.yml', 'deny'],
    ['echo 2> .github/x', 'deny'],
    ['echo > src/../.github/x', 'deny'],
    ['echo > src/../../escape', 'deny'],
    ['echo > $FILE', 'deny'],
    ['echo > "$(mktemp)"', 'deny'],
    ['echo > src/*.ts', 'deny'],
    ['echo > ~/x', 'deny'],
    ['{ echo a; } > other', 'deny'],
    ['for i in 1; do echo; done > other', 'deny'],
    ['(echo a) > src/a', 'allow'],
    ['cat <<EOF > other\nx\nEOF', 'deny'],
    ['cat <<EOF > src/x\nx\nEOF', 'allow'],
    ['echo x | tee src/a logs/b', 'allow'],
    ['echo x | tee src/a other', 'deny'],
    ['echo x | sudo tee /etc/passwd', 'deny'],
    ['echo x | tee "$F"', 'deny'],
    ['echo x > >(tee src/a)', 'allow'],
    ['echo x > >(tee other)', 'deny'],
    ['sh -c "echo x > other"', 'deny'],
    // a cd may fail or be skipped: relative targets must be allowed from every directory
    ['cd src && echo > a', 'deny'],
    ['cd src && echo > src/a', 'allow'],
    ['cd src; cd lib; echo > src/a', 'deny'], // wd/lib/src/a is not in src/
    ['cd .. && echo > src/a', 'deny'],
    ['cd /tmp && echo > a', 'deny'],
    ['cd "$D" && echo > src/a', 'deny'],
    ['cd - && echo > src/a', 'deny'],
    // a directory only known at run time leaves every later relative path unknown
    ['echo > /dev/null; cd $D; echo > /dev/null', 'deny'],
    ['find . -fprint other', 'deny'],
    ['find . -fprint src/list', 'allow']
  ])('%j → %s', (command, expected) => {
    expect(p.decide(shell(command)).decision).toBe(expected)
  })

  it('names the redirect target in the segment', () => {
    const d = p.decide(shell('echo hi 2>> other'))
    expect(d.segments?.[1]).toMatchObject({ text: '2>> other', decision: 'deny' })
  })
})

describe('shell: assignments', () => {
  let p: CompiledPolicy
  beforeAll(async () => {
    p = await compile(
      `version: 1
rules:
  - { id: hijack, decision: deny, shell: ["PATH=*", "LD_*=*"] }
  - { id: npm, decision: allow, shell: ["npm test", "export *"] }
`,
      ws.dir
    )
  })

  it('makes leading assignments part of what an allow rule must match', () => {
    // Variables steer programs (GIT_EXTERNAL_DIFF, NODE_OPTIONS): allowing `npm test` does not
    // allow it with any environment.
    expect(p.decide(shell('CI=true npm test')).decision).toBe('deny')
    expect(p.decide(shell('npm test'))).toMatchObject({ decision: 'allow', rule: 'npm' })
  })

  it('checks every assignment against deny rules', () => {
    for (const command of [
      'PATH=/tmp/evil:$PATH npm test',
      'CI=1 LD_PRELOAD=/tmp/x.so npm test',
      'PATH=/tmp/evil; npm test',
      'export PATH=/tmp/evil; npm test',
      'env PATH=/tmp/evil npm test'
    ]) {
      expect([command, p.decide(shell(command)).rule]).toEqual([command, 'hijack'])
    }
  })

  it('still checks command substitutions inside assignments', () => {
    expect(p.decide(shell('X=$(rm -rf /) npm test')).decision).toBe('deny')
    expect(p.decide(shell('X=$(npm test) npm test')).decision).toBe('deny')
    expect(p.decide(shell('$(npm test) && npm test')).decision).toBe('deny')
  })
})

describe('shell: decisions carry detail', () => {
  it('lists every rule that matched per segment', async () => {
    const p = await compile(
      `version: 1
rules:
  - { id: a, decision: allow, shell: ["git *"] }
  - { id: b, decision: allow, shell: ["git status"] }
  - { id: c, decision: deny, shell: ["git st*"] }
`,
      ws.dir
    )
    const d = p.decide(shell('git status'))
    expect(d).toMatchObject({ decision: 'deny', rule: 'c' })
    expect(d.segments?.[0]?.matched).toEqual(['a', 'b', 'c'])
  })

  it('makes the subject one line', () => {
    const d = policy.decide(shell('npm test\ngit status'))
    expect(d.subject).toBe('npm test ⏎ git status')
    expect(d.subject).not.toContain('\n')
  })

  it('names every allowing rule', async () => {
    const p = await compile(
      `version: 1
rules:
  - { id: npm, decision: allow, shell: ["npm *"] }
  - { id: git, decision: allow, shell: ["git *"] }
`,
      ws.dir
    )
    expect(p.decide(shell('npm test && git status')).rule).toBe('npm, git')
  })

  it('applies the default to commands no rule matches', async () => {
    const p = await compile(`version: 1\ndefault: allow\nrules: []\n`, ws.dir)
    expect(p.decide(shell('anything --goes'))).toMatchObject({
      decision: 'allow',
      rule: 'default'
    })
    const d = policy.decide(shell('make'))
    expect(d).toMatchObject({ decision: 'deny', rule: 'default' })
    expect(feedbackFor(d)).toMatch(/^Denied by policy rule "default": no rule matches/)
  })
})
