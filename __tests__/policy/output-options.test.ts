/**
 * Issue 30, second adversarial round, the class: an option whose value says where a program
 * writes (a build directory, a report, a profile, a log, a cache, a temporary directory) is a
 * write there, judged by the write rules, in every spelling the program accepts (`-o=F`, `--o F`,
 * `-test.coverprofile=F`, `-lFILE`, `--target-dir=D`, next word or attached), directly or through
 * a wrapper. Each row pairs a denied command with its twin that only moves the target to where
 * the rules allow it, or drops the option. The protected paths are anchored at the root: a deny
 * glob that can match at any depth denies every write of a whole tree.
 */
import type { CompiledPolicy } from '../../src/policy/index.js'
import { compile, shell, tempWorkspace, writeFiles } from './helpers.js'

const NARROW = `version: 1
rules:
  - id: tools
    decision: allow
    shell: ["go *", "cargo *", "pytest *", "mvn *", "gradle *", "pip *", "gem *", "sort *",
            "git *", "timeout *", "nice *", "patch *", "zip *", "cpio *", "brotli *"]
  - { id: edits, decision: allow, write: ["**"] }
  - id: protected
    decision: deny
    write: [".github/**", ".git/**", "package.json", "Makefile", "scripts/**"]
`

let ws: ReturnType<typeof tempWorkspace>
let policy: CompiledPolicy
beforeAll(async () => {
  ws = tempWorkspace()
  writeFiles(ws.dir, {
    'src/a.go': 'package a\n',
    f: 'b\na\n',
    'x.gemspec': '',
    '.github/workflows/ci.yml': 'on: push\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.git/objects/.keep': '',
    '.git/refs/heads/.keep': ''
  })
  policy = await compile(NARROW, ws.dir)
})
afterAll(() => ws.cleanup())

const decision = (command: string) => policy.decide(shell(command)).decision

/** Both commands of a row with their decisions: the first denied, its twin allowed. */
function expectPair(denied: string, allowed: string): void {
  expect([
    [denied, decision(denied)],
    [allowed, decision(allowed)]
  ]).toEqual([
    [denied, 'deny'],
    [allowed, 'allow']
  ])
}

describe('go: -o, the test profiles and directories, in Go flag spellings', () => {
  it.each([
    ['go build -o=.github/x .', 'go build -o=src/x .'],
    ['go build --o .github/x .', 'go build --o src/x .'],
    ['go build --o=.github/x .', 'go build --o=src/x .'],
    ['go test -coverprofile .github/c.out ./...', 'go test -coverprofile src/c.out ./...'],
    ['go test -coverprofile=.github/c.out ./...', 'go test -coverprofile=src/c.out ./...'],
    ['go test --cpuprofile=.github/cpu ./...', 'go test --cpuprofile=src/cpu ./...'],
    ['go test -memprofile .github/mem ./...', 'go test -memprofile src/mem ./...'],
    ['go test -blockprofile .git/b ./...', 'go test -blockprofile src/b ./...'],
    ['go test -mutexprofile scripts/m ./...', 'go test -mutexprofile src/m ./...'],
    ['go test -trace=.github/trace ./...', 'go test -trace=src/trace ./...'],
    [
      'go test -outputdir .github -cpuprofile c ./...',
      'go test -outputdir src/p -cpuprofile c ./...'
    ],
    // the test binary's own flags, after -args or anywhere
    [
      'go test ./... -args -test.coverprofile=.github/x',
      'go test ./... -args -test.coverprofile=src/x'
    ],
    ['go test -test.gocoverdir=.github/cov ./...', 'go test -test.gocoverdir=src/cov ./...'],
    ['go build -pkgdir .github/pkg .', 'go build -pkgdir src/pkg .'],
    [
      'timeout 600 go test -coverprofile=.github/c ./...',
      'timeout 600 go test -coverprofile=src/c ./...'
    ],
    ['nice go build -o=.github/x .', 'nice go build -o=src/x .']
  ])('%s is denied (%s: allowed)', expectPair)

  it.each([
    // the compiler's and linker's own flags: some write files or run programs
    ['go build -gcflags=all=-cpuprofile=.github/x .', 'go build "-gcflags=all=-N -l" .'],
    ['go build -ldflags=-extld=./evil .', 'go build -ldflags "-s -w -X main.version=1" .'],
    ['go build -ldflags "-o .github/x" .', 'go build -ldflags=-s .'],
    ['go vet -vettool=./evil ./...', 'go vet ./...'],
    ['go env -w GOFLAGS=-toolexec=./evil', 'go env GOFLAGS'],
    ['go tool mytool', 'go tool cover -func=c.out'],
    ['go build "$FLAG" .', 'go test -run "$T" ./...']
  ])('%s is denied (%s: allowed)', expectPair)

  it('writes HOME as outside the working directory (or the runner’s own files)', () => {
    const home = policy.decide(shell('go test -coverprofile ~/c.out ./...'))
    expect([home.decision, home.rule]).toEqual([
      'deny',
      expect.stringMatching(/^(?:outside-workspace|runner-files)$/)
    ])
  })
})

describe('cargo: the build, artifact and vendor directories, the lock file, new crates', () => {
  it.each([
    ['cargo build --target-dir .github/t', 'cargo build --target-dir src/t'],
    ['cargo test --target-dir=.github/t', 'cargo test --target-dir=src/t'],
    [
      'cargo --color always build --target-dir scripts',
      'cargo --color always build --target-dir src/t'
    ],
    ['cargo build --artifact-dir .github/a', 'cargo build --artifact-dir src/a'],
    [
      'cargo build --lockfile-path .github/Cargo.lock',
      'cargo build --lockfile-path src/Cargo.lock'
    ],
    ['cargo new .github/x', 'cargo new src/x'],
    ['cargo init scripts', 'cargo init src/y'],
    ['cargo vendor .github/vendor', 'cargo vendor src/vendor'],
    ['cargo test -- --logfile .github/x', 'cargo test -- --logfile src/test.log'],
    ['cargo install --path ../evil --root src/tools', 'cargo install --path . --root src/tools']
  ])('%s is denied (%s: allowed)', expectPair)
})

describe('pytest: reports, logs, profiles, the base temporary directory, the cache', () => {
  it.each([
    ['pytest --debug .github/x tests', 'pytest --debug src/debug.log tests'],
    ['pytest --basetemp .github/tmp', 'pytest --basetemp src/tmp'],
    ['pytest --basetemp=scripts', 'pytest --basetemp=src/tmp'],
    ['pytest -o cache_dir=.github/c', 'pytest -o cache_dir=src/cache'],
    ['pytest --override-ini=log_file=.github/x', 'pytest --override-ini=log_file=src/x.log'],
    ['pytest --html=.github/r.html', 'pytest --html=src/r.html'],
    [
      'pytest --cov=src --cov-report xml:.github/c.xml',
      'pytest --cov=src --cov-report xml:src/c.xml'
    ],
    ['pytest --cov-report=html:.github/h', 'pytest --cov-report=html:src/h'],
    ['pytest --benchmark-json .github/b.json', 'pytest --benchmark-json src/b.json'],
    ['pytest --alluredir=.github/a', 'pytest --alluredir=src/a'],
    ['pytest --pastebin=all', 'pytest -rA'],
    ['pytest -xpevil', 'pytest -rpc'],
    ['pytest -p evil', 'pytest -p no:cacheprovider']
  ])('%s is denied (%s: allowed)', expectPair)
})

describe('maven and gradle: the log file, settings in every spelling, plugin output properties', () => {
  it.each([
    ['mvn -l .github/build.log test', 'mvn -l src/build.log test'],
    ['mvn --log-file=.github/x test', 'mvn --log-file=src/x test'],
    ['mvn -l.github/x test', 'mvn -lsrc/x test'],
    ['mvn -q -l=scripts/x test', 'mvn -q -l=src/x test'],
    ['mvn -ssettings.xml test', 'mvn -fae test'],
    ['mvn -gt toolchains.xml test', 'mvn -T 2 test'],
    ['mvn -Djacoco.destFile=.github/x test', 'mvn -Djacoco.skip=true test'],
    ['gradle test --scan', 'gradle test --offline']
  ])('%s is denied (%s: allowed)', expectPair)
})

describe('pip, gem, sort and git', () => {
  it.each([
    ['pip download -d .github x', 'pip download -d src/dl x'],
    ['pip download --dest=.github x', 'pip download --dest=src/dl x'],
    ['pip wheel -w .github x', 'pip wheel -w src/wheels x'],
    ['pip --cache-dir=.github list', 'pip --cache-dir=src/cache list'],
    ['pip config set global.target x', 'pip config get global.target'],
    ['gem build x.gemspec -o .github/x.gem', 'gem build x.gemspec -o src/x.gem'],
    ['gem build x.gemspec --output=.github/x.gem', 'gem build x.gemspec --output=src/x.gem'],
    ['gem unpack x --target=.github', 'gem unpack x --target=src/gems'],
    ['sort -T .github f', 'sort -T src/tmp f'],
    ['sort --temporary-directory=.github f', 'sort --temporary-directory=src/tmp f'],
    ['sort -T.github f', 'sort -T src/tmp f'],
    ['git tag v1.0', 'git tag -l v1.0'],
    ['git tag -a -m release v1.0', 'git tag --contains HEAD'],
    ['git tag -d v1.0', 'git tag -n'],
    ['git tag --del v1.0', 'git tag'],
    ['git fsck --lost-found', 'git fsck']
  ])('%s is denied (%s: allowed)', expectPair)
})

describe('archivers and patch: temporary archives, backups, what an archive names', () => {
  it.each([
    ['zip -b .github a.zip f', 'zip -b src/tmp a.zip f'],
    ['zip --temp-path .github a.zip f', 'zip --temp-path src/tmp a.zip f'],
    ['cpio -i -F a.cpio', 'cpio -it -F a.cpio'],
    ['cpio --extract --file=a.cpio', 'cpio --list --file=a.cpio'],
    ['brotli -o .github/x f', 'brotli -o src/x f'],
    ['patch -B .github/ src/a.go fix.diff', 'patch -B bak/ src/a.go fix.diff'],
    ['patch --prefix=scripts/ src/a.go fix.diff', 'patch --prefix=bak/ src/a.go fix.diff'],
    ['patch -Y .github/ f fix.diff', 'patch -Y bak- f fix.diff']
  ])('%s is denied (%s: allowed)', expectPair)
})
