/**
 * Issue 30, points 4 and 5: installers' location options are writes to their targets (judged by
 * the write rules), and build tools' code options run code, under a narrow policy that allows
 * each program by name (`pip *`, `make *`): several programs, several spellings each.
 */
import type { CompiledPolicy } from '../../src/policy/index.js'
import { compile, shell, tempWorkspace, writeFiles } from './helpers.js'

const NARROW = `version: 1
rules:
  - id: tools
    decision: allow
    shell: ["pip *", "pip3 *", "python -m pip *", "gem *", "cargo *", "go *", "make", "make *", "mvn *",
            "gradle *", "./gradlew *", "pytest *", "npm *", "yq *", "perl *", "sed *"]
  - { id: sources, decision: allow, write: ["src/**"] }
  - { id: workflows, decision: deny, write: [".github/**"] }
`

let ws: ReturnType<typeof tempWorkspace>
let policy: CompiledPolicy
beforeAll(async () => {
  ws = tempWorkspace()
  writeFiles(ws.dir, { 'src/a.yml': 'a: 1\n', '.github/workflows/ci.yml': 'on: push\n' })
  policy = await compile(NARROW, ws.dir)
})
afterAll(() => ws.cleanup())

const decide = (command: string) => [command, policy.decide(shell(command)).decision]

describe('installers write where their options point', () => {
  it.each([
    'pip install --user x',
    'pip install --us x',
    'pip3 install --target /srv/x x',
    'pip install -t .github x',
    'pip install -t.github x',
    'pip install --root=/ x',
    'pip install --prefix ~/.local x',
    'python -m pip install --target=.github x',
    'npm install -g x',
    'npm install --prefix /srv x',
    'gem install x',
    'gem install --user-install x',
    'gem install -i /srv/gems x',
    'gem install --install-dir=.github x',
    'cargo install x',
    'cargo install --root /srv x',
    'cargo install --root=.github x',
    'go install example.com/x@latest',
    'go build -o .github/x .',
    "yq -i '.on = 1' .github/workflows/ci.yml",
    "perl -pi -e 's/push/pull/' .github/workflows/ci.yml",
    "sed -i 's/push/pull/' .github/workflows/ci.yml"
  ])('%s is denied', (command) => {
    expect(decide(command)).toEqual([command, 'deny'])
  })

  it.each([
    'pip install --target src/vendor x',
    'pip list',
    'gem install -i src/gems x',
    'cargo install --root src/tools x',
    'go build -o src/bin/x .',
    "yq -i '.a = 2' src/a.yml"
  ])('%s is allowed where the write rules allow its target', (command) => {
    expect(decide(command)).toEqual([command, 'allow'])
  })
})

describe("build tools' code options run code", () => {
  it.each([
    "make --eval='x:;id' x",
    "make --ev='x:;id' x",
    "make -E 'x:;id' x",
    'make -f /srv/Makefile',
    'make --file=other.mk',
    'make -kf other.mk',
    'make -I /srv include-me',
    'make SHELL=/bin/sh test',
    'make CC=./evil',
    'make "$TARGET"',
    'cargo --config \'build.rustc-wrapper="sh"\' build',
    'cargo --config=x.toml test',
    'cargo -Zunstable-options build',
    'go test -exec ./evil ./...',
    'go build -toolexec=./evil .',
    'mvn -Dexec.executable=sh exec:exec',
    'mvn exec:java',
    'mvn -DargLine=-javaagent:x.jar test',
    'mvn -Dmaven.ext.class.path=x.jar test',
    'mvn -s settings.xml test',
    'gradle -I init.gradle build',
    'gradle --init-script init.gradle build',
    './gradlew -b other.gradle test',
    './gradlew -Dorg.gradle.jvmargs=-javaagent:x test',
    // another directory's makefile (any spelling of -C), like -f
    'make -C src',
    'make -Csrc test',
    'make -sC src test',
    'make --directory=src test',
    'make --dir src test',
    'cargo build --manifest-path vendor/x/Cargo.toml',
    'cargo test --manifest-path=vendor/x/Cargo.toml',
    'pytest -p evil',
    'pytest -pevil',
    'pytest --rootdir /srv tests',
    'pytest -c /srv/pytest.ini',
    'pytest -o addopts=-pevil',
    'npm test --node-options=--require=./x.js',
    'npm --script-shell=./evil test'
  ])('%s is denied', (command) => {
    expect(decide(command)).toEqual([command, 'deny'])
  })

  it.each([
    'make',
    'make -j4 test',
    'make VERBOSE=1 test',
    'make -C .',
    'cargo build --release',
    'cargo build --manifest-path Cargo.toml',
    'cargo test -- --nocapture',
    'go test ./...',
    'mvn -DskipTests package',
    'gradle test',
    'pytest -x -q tests',
    'pytest -k "not slow"'
  ])('%s is allowed', (command) => {
    expect(decide(command)).toEqual([command, 'allow'])
  })
})
