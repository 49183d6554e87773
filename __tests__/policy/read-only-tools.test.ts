/**
 * Issue 30, second adversarial round: read-only's false positives. `sed` that only prints,
 * `printf`, `git tag` listing, the checksum tools and `date` are read-only and allowed; what
 * they do beyond printing stays denied, by the engine's reading of each program rather than by
 * the text of a rule: `sed -i` and sed's `w` write, its `e` and `-f` run code, `printf -v` assigns
 * a variable, `git tag NAME` writes a ref, `sha256sum -c` reads the files a list names, `date -s`
 * sets the clock, and jq's `env`, awk's `ENVIRON` and yq's `strenv()` read the environment. Each row pairs an allowed command with a denied sibling.
 */
import { compilePolicy, presetText, type CompiledPolicy } from '../../src/policy/index.js'
import { shell, tempWorkspace, writeFiles } from './helpers.js'

let ws: ReturnType<typeof tempWorkspace>
let policy: CompiledPolicy
beforeAll(async () => {
  ws = tempWorkspace()
  writeFiles(ws.dir, {
    'src/a.ts': 'a\n',
    'build.log': 'warning: x\n',
    SHA256SUMS: '',
    'package.json': '{}\n',
    'a.yml': 'a: 1\n'
  })
  policy = await compilePolicy(presetText('read-only'), 'built-in:read-only', ws.dir)
})
afterAll(() => ws.cleanup())

const decide = (command: string) => policy.decide(shell(command))

describe('read-only allows what only prints, and denies its siblings that do more', () => {
  it.each([
    // sed: the engine reads its script and options
    ["sed 's/a/b/' src/a.ts", "sed -i 's/a/b/' src/a.ts", 'default'],
    ["sed -n '/warning/p' build.log", "sed -n '/warning/w out' build.log", 'default'],
    ["sed -e 's/a/b/' -e '1d' src/a.ts", "sed -e 's/a/b/' -e '1e id' src/a.ts", 'runs-code'],
    ["sed -E 's/(a)/[\\1]/g' src/a.ts", "sed --in-place=.bak 's/a/b/' src/a.ts", 'default'],
    ["cat src/a.ts | sed 's/^/> /'", 'sed -f script.sed src/a.ts', 'runs-code'],
    ['sed --sandbox -f script.sed src/a.ts', "sed -s -i 's/a/b/' src/a.ts", 'default'],
    // printf prints; -v assigns a shell variable
    ["printf '%s' a", 'printf -v x %s a', 'printf-variable'],
    ["printf '%s %s' -v x", 'printf -vx %s a', 'printf-variable'],
    // git tag lists; a name creates the tag's ref
    ['git tag', 'git tag v1.0', 'default'],
    ['git tag -n5 --contains HEAD', 'git tag -a -m release v1.0', 'default'],
    ['git --no-pager tag --sort=-creatordate', 'git tag -d v1.0', 'default'],
    ['git tag --points-at HEAD', 'git tag -f v1.0 HEAD', 'default'],
    // the checksum tools read their operands; -c reads the files a list names
    ['sha256sum src/a.ts', 'sha256sum -c SHA256SUMS', 'reads-unknown'],
    ['md5sum src/a.ts build.log', 'md5sum --check SHA256SUMS', 'reads-unknown'],
    ['cat src/a.ts | sha256sum', 'sha1sum -wc SHA256SUMS', 'reads-unknown'],
    ['shasum -a 256 src/a.ts', 'sha512sum --ch SHA256SUMS', 'reads-unknown'],
    // date prints; -s or a date operand sets the clock
    ['date', 'date -s 2030-01-01', 'writes-unknown'],
    ['date -u +%Y-%m-%dT%H:%M:%SZ', 'date --set=tomorrow', 'writes-unknown'],
    ['date -d @0 +%F', 'date 010100002030', 'writes-unknown'],
    ['date -I', 'date "$WHEN"', 'dynamic-argument'],
    // jq, yq and awk print what they read; their environment builtins read the environment,
    // judged as /proc/self/environ is (`env` and `printenv` are not read-only's either)
    ["jq '.env' package.json", 'jq -n env', 'sensitive-path'],
    ['jq \'.[] | select(.kind == "env")\' package.json', "jq -n '$ENV.HOME'", 'sensitive-path'],
    ["jq -r '.name' package.json", 'jq -n \'"\\(env.HOME)"\'', 'sensitive-path'],
    [
      'awk \'{print "ENVIRON"}\' build.log',
      "awk 'BEGIN{for(k in ENVIRON) print k}'",
      'sensitive-path'
    ],
    // gawk's SYMTAB reaches every global by name: SYMTAB["ENVIRON"] is the environment
    [
      'awk \'{print "SYMTAB"}\' build.log',
      'awk \'BEGIN{v="ENVIRON"; print SYMTAB[v]["HOME"]}\'',
      'sensitive-path'
    ]
  ])('%s is allowed; %s is denied (%s)', (allowed, denied, rule) => {
    const a = decide(allowed)
    const d = decide(denied)
    const rules = [d.rule, ...(d.segments ?? []).map((s) => s.rule)]
    expect([allowed, a.decision, denied, d.decision, rules.includes(rule)]).toEqual([
      allowed,
      'allow',
      denied,
      'deny',
      true
    ])
  })
})

describe('yq: its environment operators read the environment, as /proc/self/environ', () => {
  it('env(), strenv() and envsubst are denied where a plain expression is allowed', async () => {
    const yq = await compilePolicy(
      'version: 1\nrules:\n  - { id: yq, decision: allow, shell: ["yq *"] }\n',
      'p.yml',
      ws.dir
    )
    const d = (c: string) => yq.decide(shell(c)).decision
    expect([
      d("yq '.env' a.yml"),
      d('yq \'.a = "env(HOME)"\' a.yml'),
      d("yq '.a = strenv(HOME)' a.yml"),
      d("yq '.a = env(HOME)' a.yml"),
      d("yq '.a | envsubst' a.yml")
    ]).toEqual(['allow', 'allow', 'deny', 'deny', 'deny'])
  })
})
