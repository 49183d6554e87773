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

// ---------------------------------------------------------------------------------------------
// "Read-only" programs that write, run code or connect (commandEffects): an allowed program's
// options are the agent's to choose. Rows under the table's policy, then under one that allows
// the programs by name. (This block is maintained with src/policy/commands.ts.)

const EFFECTS_POLICY = `version: 1
default: deny
rules:
  - { id: gh, decision: deny, write: [".github/**", ".git/**"] }
  - { id: src, decision: allow, write: ["src/**"] }
  - { id: docs, decision: allow, url: ["docs.github.com"] }
  - id: programs
    decision: allow
    shell: ["sed *", "git *", "sort *", "uniq *", "find *", "file *", "tar *", "awk *", "rg *",
            "less *", "man *", "cp *", "mv *", "rm *", "touch *", "dd *", "patch *", "curl *",
            "wget *", "npm *", "npx *", "env *", "xargs *", "sudo *", "sh -c *", "cat *"]
`

const EFFECTS_UNDER_TABLE_POLICY: Array<[string, Verdict]> = [
  ['git diff --stat', 'allow'],
  ['git log --oneline -5', 'allow'],
  ['git diff --output=.github/workflows/ci.yml', 'deny'],
  ['git diff --output .git/hooks/pre-commit', 'deny'],
  ['git log --output=src/escape/x', 'deny'],
  ['git log --outp=/tmp/x', 'deny'],
  ['git diff --ext-diff', 'deny'],
  ['git log -p --ext-diff HEAD~1', 'deny'],
  ['git diff $OPT', 'deny'],
  ['find src -name "*.ts"', 'allow'],
  ['find . -name x -delete', 'deny'],
  ['find -delete', 'deny'],
  ['find src/gh-link -delete', 'deny'],
  ['find . $ACTION', 'deny'],
  ['npm test', 'allow'],
  ['npm run build -- --node-options=--require=./x.js', 'allow'],
  ['npm run build --node-options=--require=./x.js', 'deny'],
  ['npm test --script-shell=./src/evil.sh', 'deny'],
  ['npm test --userconfig=src/npmrc', 'deny'],
  ['npm run x --NODE_OPTIONS=--import=./x.mjs', 'deny'],
  ['env npm test --node-options=--require=./x.js', 'deny'],
  ['sudo npm run lint --shell=./x', 'deny'],
  ['echo .github/workflows/ci.yml | xargs git diff --output', 'deny']
]

const EFFECTS_ROWS: Array<[string, Verdict]> = [
  // ordinary use
  ["sed -n '1,20p' src/a.ts", 'allow'],
  ['sed -i s/a/b/ src/a.ts', 'allow'],
  ['git log --oneline -5', 'allow'],
  ['sort src/a.ts | uniq -c', 'allow'],
  ['cp src/a.ts src/b.ts', 'allow'],
  ['rm src/tmp.txt', 'allow'],
  ['curl https://docs.github.com/x', 'allow'],
  // sed
  ['sed -i s/a/b/ .github/workflows/ci.yml', 'deny'],
  ['sed -i s/a/b/ src/gh-link/workflows/ci.yml', 'deny'],
  ['sed -i s/a/b/ src/escape/secret', 'deny'],
  ['sed --in-place=.bak s/a/b/ .git/config', 'deny'],
  ['sed -ni s/a/b/ .git/config', 'deny'],
  ['sed s/a/b/ -i .git/config', 'deny'],
  ["sed 'w .github/workflows/x.yml' src/a.ts", 'deny'],
  ["sed 's/x/y/w src/gh-link/x' src/a.ts", 'deny'],
  ["sed 's/[/]/x/w .git/config' src/a.ts", 'deny'],
  ["sed -n '$!{h;d};x;G;w .git/x' src/a.ts", 'deny'],
  ["sed '1e id' src/a.ts", 'deny'],
  ["sed 's/.*/id/e' src/a.ts", 'deny'],
  ['sed -f x.sed src/a.ts', 'deny'],
  ['sed "$SCRIPT" src/a.ts', 'deny'],
  ['env sed -i s/a/b/ .git/config', 'deny'],
  ['sh -c "sed -i s/a/b/ .github/workflows/ci.yml"', 'deny'],
  ['echo .git/config | xargs sed -i s/a/b/', 'deny'],
  // find
  ['find . -delete', 'deny'],
  ['find src/escape -delete', 'deny'],
  ['find . -fprint .github/x', 'deny'],
  // sort, uniq
  ['sort -o .github/workflows/ci.yml src/a.ts', 'deny'],
  ['sort -o.git/config src/a.ts', 'deny'],
  ['sort --output=src/escape/x src/a.ts', 'deny'],
  ['sort src/a.ts -o /tmp/x', 'deny'],
  ['sort --compress-program=./x src/a.ts', 'deny'],
  ['uniq src/a.ts .github/x', 'deny'],
  // git
  ['git -c core.pager=./src/x.sh log', 'deny'],
  ['git -c core.fsmonitor=./x status', 'deny'],
  ['git --config-env=core.pager=X log', 'deny'],
  ['git --exec-path=src log', 'deny'],
  ['git --git-dir=src/evil status', 'deny'],
  ['git -C /tmp/evil status', 'deny'],
  ['git log --output=.github/x', 'deny'],
  ['git grep -O foo', 'deny'],
  ['git archive -o .github/x.tar HEAD', 'deny'],
  ['git fetch origin', 'deny'],
  ['git ls-remote https://github.com/x/y', 'deny'],
  ['git config core.hooksPath src/hooks', 'deny'],
  ['git checkout -- .github/workflows/ci.yml', 'deny'],
  ['git checkout evil-branch', 'deny'],
  ['git stash pop', 'deny'],
  ['git apply x.patch', 'deny'],
  ['git reset --hard HEAD~1', 'deny'],
  ['git clean -fdx', 'deny'],
  ['git rm -r .github', 'deny'],
  ['git bisect run ./x.sh', 'deny'],
  ['git rebase --exec ./x.sh HEAD~2', 'deny'],
  ['git submodule foreach ./x.sh', 'deny'],
  // file, tar
  ['file -C -m src/m', 'deny'],
  ['tar -xf a.tar', 'deny'],
  ['tar xf a.tar -C src/gh-link', 'deny'],
  ['tar -xf a.tar -C src/escape', 'deny'],
  ['tar -cf .github/x.tar src', 'deny'],
  ["tar -tf a.tar --to-command='sh -c id'", 'deny'],
  ["tar -tf a.tar -I 'sh -c id'", 'deny'],
  ['tar -tf a.tar --checkpoint-action=exec=id', 'deny'],
  ['tar -tf evil.example:a.tar', 'deny'],
  // awk
  ['awk \'BEGIN {system("id")}\'', 'deny'],
  ['awk \'{print | "sh"}\' src/a.ts', 'deny'],
  ['awk \'{print > ".github/x"}\' src/a.ts', 'deny'],
  ["awk '{print > $2}' src/a.ts", 'deny'],
  ['awk -f x.awk src/a.ts', 'deny'],
  // rg, less, man
  ['rg --pre ./x foo', 'deny'],
  ["less '+!id' src/a.ts", 'deny'],
  ['less -o .github/x src/a.ts', 'deny'],
  ['man -P ./x git', 'deny'],
  // cp, mv, rm, touch, dd, patch
  ['cp src/a.ts .github/workflows/ci.yml', 'deny'],
  ['cp -t .github src/a.ts', 'deny'],
  ['cp src/a.ts src/gh-link/', 'deny'],
  ['mv .github/workflows/ci.yml src/x', 'deny'],
  ['rm -rf .github', 'deny'],
  ['rm src/gh-link/workflows/ci.yml', 'deny'],
  ['rm -rf src/escape/', 'deny'],
  ['touch .git/hooks/pre-commit', 'deny'],
  ['dd if=src/a.ts of=.git/config', 'deny'],
  ['patch -p1 < x.patch', 'deny'],
  // curl, wget
  ['curl https://evil.example/', 'deny'],
  ['curl -o .github/x https://docs.github.com/x', 'deny'],
  ['curl -O https://docs.github.com/x', 'deny'],
  ['curl -K cfg https://docs.github.com/x', 'deny'],
  ['curl file:///etc/passwd', 'deny'],
  ["curl 'https://docs.github.com{.evil.example,}/'", 'deny'],
  ['curl -x evil.example:8080 https://docs.github.com/', 'deny'],
  ['wget -O .github/x https://docs.github.com/x', 'deny'],
  ["wget -e 'output_document=.github/x' https://docs.github.com/x", 'deny'],
  // npm, npx
  ['npm run x --node-options=--require=./x.js', 'deny'],
  ["npx -c 'id'", 'deny'],
  ['npx --package=evil evil', 'deny']
]

describe('adversarial requests: what allowed programs do', () => {
  let effects: CompiledPolicy
  beforeAll(async () => {
    effects = await compile(EFFECTS_POLICY, ws.dir)
  })

  it.each(EFFECTS_UNDER_TABLE_POLICY)('shell %j → %s (table policy)', (command, expected) => {
    expect(policy.decide(shell(command)).decision).toBe(expected)
  })

  it.each(EFFECTS_ROWS)('shell %j → %s (programs allowed by name)', (command, expected) => {
    expect(effects.decide(shell(command)).decision).toBe(expected)
  })
})
