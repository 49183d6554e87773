/**
 * Issue 30, classes 1 and 2: where no OS sandbox runs, the policy alone keeps secrets. Reads
 * outside the working directory are an allowlist (system locations, toolchains, /proc/self, the
 * run's own /tmp files), HOME is unreadable unless a rule names a path in it, and a program whose
 * script or file list can name a file the engine cannot see reads something unknown. Each row is
 * built from the principle: several programs, several spellings, under read-only and a narrow
 * custom policy that allows the programs by name.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { compilePolicy, presetText, type CompiledPolicy } from '../../src/policy/index.js'
import { compile, read, shell, tempWorkspace, writeFiles } from './helpers.js'

const NARROW = `version: 1
rules:
  - id: tools
    decision: allow
    shell: ["cat *", "head *", "ls *", "grep *", "awk *", "sed *", "jq *", "yq *", "perl *",
            "ruby *", "find *", "sort *", "wc *", "du *", "xargs *", "cd *", "diff *", "cp *",
            "stat *", "tar *", "echo *", "git *"]
  - { id: sources, decision: allow, write: ["src/**"] }
  - { id: workflows, decision: deny, write: [".github/**"] }
`

let ws: ReturnType<typeof tempWorkspace>
let home: string
let srv: string
const savedHome = process.env.HOME
const policies: Array<[string, CompiledPolicy]> = []

beforeAll(async () => {
  ws = tempWorkspace()
  home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'allowlist-home-')))
  srv = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'allowlist-srv-')))
  process.env.HOME = home
  writeFiles(home, {
    '.m2/settings.xml': '<password>x</password>',
    '.config/git/credentials': 'https://u:t@github.com',
    '.gradle/gradle.properties': 'token=x',
    '.terraform.d/credentials.tfrc.json': '{}',
    'notes.txt': 'x'
  })
  writeFiles(srv, { 'data.json': '{}' })
  writeFiles(ws.dir, { 'src/a.ts': 'x\n', 'a.yml': 'a: 1\n', list: 'src/a.ts\0' })
  mkdirSync(path.join(ws.dir, 'links'))
  symlinkSync(home, path.join(ws.dir, 'links/home'))
  symlinkSync(path.join(home, '.m2'), path.join(ws.dir, 'links/m2'))
  policies.push(
    ['read-only', await compilePolicy(presetText('read-only'), 'built-in:read-only', ws.dir)],
    ['narrow', await compile(NARROW, ws.dir)]
  )
})
afterAll(() => {
  process.env.HOME = savedHome
  ws.cleanup()
  rmSync(home, { recursive: true, force: true })
  rmSync(srv, { recursive: true, force: true })
})

function decideAll(command: string): Array<[string, string, string]> {
  return policies.map(([name, p]) => {
    const d = p.decide(
      shell(
        command
          .replaceAll('$HOMEDIR', home)
          .replaceAll('$SRVNAME', path.basename(srv))
          .replaceAll('$SRV', srv)
      )
    )
    return [name, d.decision, d.rule]
  })
}

describe('reads outside the working directory are an allowlist', () => {
  it.each([
    // HOME: build tools', cloud CLIs' and git's credential files no list names
    'cat $HOMEDIR/.m2/settings.xml',
    'cat ~/.m2/settings.xml',
    'head -5 ~/.config/git/credentials',
    'grep -r token ~/.gradle',
    'ls ~',
    'ls ~/.terraform.d',
    'cat ~/.terraform.d/*.json',
    'diff src/a.ts ~/notes.txt',
    'cd ~/.m2 && cat settings.xml',
    'cd src && cat ../links/m2/settings.xml',
    'cat links/home/notes.txt',
    'cat links/m2/settings.xml',
    'stat $HOMEDIR/notes.txt',
    'cp ~/.m2/settings.xml src/x',
    'awk 1 ~/.m2/settings.xml',
    'sed -n 1p ~/.m2/settings.xml',
    'jq . ~/.terraform.d/credentials.tfrc.json',
    'tar -cf - -C ~ .m2',
    // other places outside: /srv, /, a sibling directory
    'cat $SRV/data.json',
    'ls /',
    'ls ..',
    'cd .. && ls',
    'grep -rn x $SRV',
    'find $SRV -name "*.json"',
    // /proc beyond the process itself
    'cat /proc/1/environ',
    'cat /proc/self/environ',
    'ls /proc/self/fd',
    'cat /proc/self/root/etc/hostname',
    'cat /proc/self/../1/status',
    // a link into the process's own /proc is the command's, not the engine's: /dev/fd/../cwd is
    // the command's working directory, so `..` from there reaches whatever it likes
    'cat /dev/fd/../cwd/../$SRVNAME/data.json',
    'cd src && head -n 5 /dev/fd/../cwd/../../$SRVNAME/data.json',
    'grep -r . /dev/stdin/../../cwd/../$SRVNAME',
    'cat /dev/fd/3/../../root/etc/hostname',
    // /etc's secrets
    'cat /etc/shadow',
    'ls /etc/ssl/private'
  ])('%s is denied', (command) => {
    for (const [name, decision, rule] of decideAll(command)) {
      expect([command, name, decision, rule]).toEqual([command, name, 'deny', expect.any(String)])
    }
  })

  it.each([
    'cat /etc/os-release',
    'ls /usr/bin',
    'head /usr/include/stdio.h',
    'cat /proc/self/status',
    'cat /proc/cpuinfo',
    'cat /dev/stdin',
    'cat /dev/fd/0',
    'cd /usr/share && ls -1',
    'grep -n x src/a.ts',
    'echo ~/.m2/settings.xml',
    'cat ~/not-there.txt',
    "awk '{print $1}' src/a.ts",
    "sed -n '1,5p' src/a.ts",
    "jq -r '.a' a.yml"
  ])('%s is allowed', (command) => {
    for (const [name, decision, rule] of decideAll(command)) {
      if (name === 'read-only' && /^(?:cd|echo|stat) /.test(command)) continue
      expect([command, name, decision, rule]).toEqual([command, name, 'allow', expect.any(String)])
    }
  })

  it('names the allowlist in the decision of a read request', () => {
    const [, p] = policies[0] as [string, CompiledPolicy]
    expect(p.decide(read('/etc/os-release'))).toMatchObject({
      decision: 'allow',
      rule: 'system-read'
    })
    expect(p.decide(read(`${home}/.m2/settings.xml`))).toMatchObject({
      decision: 'deny',
      rule: 'outside-workspace',
      reason: expect.stringContaining('HOME') as unknown
    })
    expect(p.decide(read('/proc/self/status')).rule).toBe('system-read')
    expect(p.decide(read('/proc/self/environ')).decision).toBe('deny')
  })

  it('opens HOME only to a rule that names a path in it', async () => {
    const everything = await compile(
      `version: 1\nrules:\n  - { id: all, decision: allow, read: ["/**"] }\n  - { id: c, decision: allow, shell: ["cat *"] }\n`,
      ws.dir
    )
    expect(everything.decide(read(`${srv}/data.json`)).decision).toBe('allow')
    expect(everything.decide(read(`${home}/.m2/settings.xml`)).decision).toBe('deny')
    expect(everything.decide(shell(`cat ${home}/.m2/settings.xml`)).decision).toBe('deny')
    const named = await compile(
      `version: 1\nrules:\n  - { id: m2, decision: allow, read: ["${home}/.m2/**"] }\n  - { id: c, decision: allow, shell: ["cat *"] }\n`,
      ws.dir
    )
    expect(named.decide(read(`${home}/.m2/settings.xml`))).toMatchObject({
      decision: 'allow',
      rule: 'm2'
    })
    expect(named.decide(shell(`cat ${home}/.m2/settings.xml`)).decision).toBe('allow')
    expect(named.decide(shell(`cat ${home}/notes.txt`)).decision).toBe('deny')
  })

  it("reads in /tmp only what the run's own commands made there", async () => {
    const before = path.join(os.tmpdir(), `allowlist-before-${process.pid}`)
    writeFileSync(before, 'secret of an earlier step')
    await new Promise((resolve) => setTimeout(resolve, 20))
    try {
      const p = await compile(NARROW, ws.dir)
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(p.decide(shell(`cat ${before}`)).decision).toBe('deny')
      const after = path.join(os.tmpdir(), `allowlist-after-${process.pid}`)
      writeFileSync(after, '{}')
      try {
        expect(p.decide(shell(`cat ${after}`)).decision).toBe('allow')
      } finally {
        rmSync(after, { force: true })
      }
    } finally {
      rmSync(before, { force: true })
    }
  })
})

describe('programs that read files the policy cannot see', () => {
  it.each([
    // awk: a built name, ARGV
    `awk 'BEGIN{f="/et" "c/hostname"; while((getline l < f)>0) print l}'`,
    `awk 'BEGIN{getline x < ENVIRON["F"]; print x}'`,
    `awk 'BEGIN{ARGV[1]="x"; ARGC=2} {print}'`,
    `awk 'BEGIN{split("a b", ARGV)} 1'`,
    `gawk '{ getline line < ($1 ".txt") }' src/a.ts`,
    // jq / yq
    `jq -n 'import "creds" as $c; $c'`,
    `jq -L src 'include "m"; .' a.yml`,
    'jq -f filter.jq a.yml',
    `yq 'load(strenv(F))' a.yml`,
    `yq -n 'eval(strenv(E))'`,
    `yq e '.a = load_str("/et" + "c/hostname")' a.yml`,
    'yq --from-file=x.yq a.yml',
    // file lists
    'sort --files0-from=list',
    'wc --files0-from list',
    'du --files0=list -s',
    'find -files0-from list -name x',
    'xargs -a list cat',
    'xargs --arg-file=list head -1',
    'cat list | xargs cat',
    'echo ~/.m2/settings.xml | xargs -I{} cat {}',
    // perl / ruby
    `perl -e 'open(my $f, "<", "/et"."c/hostname"); print <$f>'`,
    `perl -ne 'print' -MSomething src/a.ts`,
    `perl -e '&{"sys"."tem"}("id")'`,
    `perl -e 'print \`id\`'`,
    `perl -pe 's/x/"sy"."stem q(id)"/ee' src/a.ts`,
    'perl x.pl',
    `ruby -e 'puts File.read("x")'`,
    `ruby -e 'print %x(id)'`
  ])('%s is denied', (command) => {
    for (const [name, decision] of decideAll(command)) {
      expect([command, name, decision]).toEqual([command, name, 'deny'])
    }
  })

  it.each([
    `awk '{print $1}' src/a.ts`,
    `awk 'BEGIN{while((getline l < "src/a.ts")>0) n++; print n}'`,
    `jq -r '.a' a.yml`,
    `yq '.a' a.yml`,
    `yq -i '.a = 2' src/x.yml`,
    `perl -ne 'print if /x/' src/a.ts`,
    `perl -pi -e 's/a/b/' src/a.ts`,
    `ruby -ne 'print if $_ =~ /x/' src/a.ts`,
    'sort src/a.ts',
    'wc -l src/a.ts'
  ])('%s is allowed by a rule naming the program', (command) => {
    const [, p] = policies[1] as [string, CompiledPolicy]
    expect([command, p.decide(shell(command)).decision]).toEqual([command, 'allow'])
  })

  it.each([
    `yq -i '.on = 1' .github/workflows/ci.yml`,
    `yq -i '.a = 1' ~/.bashrc`,
    `perl -pi -e 's/a/b/' .github/workflows/ci.yml`,
    `ruby -i -pe 'x' .github/x.yml`
  ])('in-place editing writes its operand: %s is denied', (command) => {
    const [, p] = policies[1] as [string, CompiledPolicy]
    expect([command, p.decide(shell(command)).decision]).toEqual([command, 'deny'])
  })
})
