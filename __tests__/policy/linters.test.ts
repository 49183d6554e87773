/**
 * Issue 30, third adversarial round, the class left open: linters, formatters and test runners
 * (ESLint, Prettier, Jest, Vitest, mypy, Ruff) and the package managers that run them. Their
 * options that say where they write are writes there; the options that make them rewrite the files
 * they check are in-place writes of those files; the options that load a module, a plugin, code
 * as configuration or a program are `runs-code`; a data configuration that can say where Ruff
 * writes is `writes-unknown`. Each row pairs a denied command with its twin that only moves the
 * target where the rules allow it, or drops the option; in every spelling the tool accepts, run
 * directly, through npx / pnpm / yarn / `python -m`, and as a script's arguments (`npm test --`).
 */
import type { CompiledPolicy } from '../../src/policy/index.js'
import { compile, shell, tempWorkspace, writeFiles } from './helpers.js'

const NARROW = `version: 1
rules:
  - id: tools
    decision: allow
    shell: ["eslint *", "npx *", "pnpm *", "yarn *", "prettier *", "jest *", "vitest *",
            "mypy *", "ruff *", "python *", "npm *", "cd *"]
  - { id: edits, decision: allow, write: ["**"] }
  - id: protected
    decision: deny
    write: [".github/**", ".git/**", "package.json", "package-lock.json", "scripts/**"]
`

let ws: ReturnType<typeof tempWorkspace>
let policy: CompiledPolicy
beforeAll(async () => {
  ws = tempWorkspace()
  writeFiles(ws.dir, {
    'src/a.ts': 'export const a = 1\n',
    'src/b.py': 'b = 1\n',
    'scripts/check.js': 'console.log(1)\n',
    'package.json': '{"name":"x"}\n',
    '.github/workflows/ci.yml': 'on: push\n',
    '.git/HEAD': 'ref: refs/heads/main\n'
  })
  policy = await compile(NARROW, ws.dir)
})
afterAll(() => ws.cleanup())

const decided = (command: string) => {
  const d = policy.decide(shell(command))
  return [command, d.decision, d.decision === 'deny' ? d.rule : ''] as const
}

/** The first command denied by `rule`, its twin allowed. */
function expectPair(denied: string, allowed: string, rule = 'protected'): void {
  expect([decided(denied), decided(allowed)]).toEqual([
    [denied, 'deny', rule],
    [allowed, 'allow', '']
  ])
}

describe('where they write: a report, an output file, a cache, in each spelling', () => {
  it.each([
    ['eslint -o .github/x src', 'eslint -o src/report.txt src'],
    ['eslint --output-file=.github/x src', 'eslint --output-file=src/r src'],
    ['npx eslint --output-file .github/x src', 'npx eslint --output-file src/r src'],
    [
      'eslint --suppress-all --suppressions-location scripts/s.json src',
      'eslint --suppress-all --suppressions-location src/s.json src'
    ],
    ['jest --json --outputFile=.github/x', 'jest --json --outputFile=src/x.json'],
    ['npx jest --json --output-file .github/x', 'npx jest --json --output-file src/x.json'],
    ['jest --coverageDirectory scripts/cov', 'jest --coverageDirectory src/cov'],
    ['vitest run --outputFile.json=.github/x', 'vitest run --outputFile.json=src/x.json'],
    ['mypy --junit-xml .github/x src', 'mypy --junit-xml src/x.xml src'],
    ['mypy --junit .github/x src', 'mypy --junit src/x.xml src'],
    ['mypy --html-report .github src', 'mypy --html-report src/report src'],
    ['mypy --linecount .github src', 'mypy --linecount src/lc src'],
    ['python -m mypy --cache-dir scripts/c src', 'python -m mypy --cache-dir src/c src'],
    ['ruff check -o .github/x src', 'ruff check -o src/x src'],
    ['ruff check --output-file=.github/x src', 'ruff check --output-file=src/x src'],
    ['ruff --cache-dir .github/c check src', 'ruff --cache-dir src/c check src'],
    [
      'prettier --check --cache --cache-location scripts/c src',
      'prettier --check --cache --cache-location src/c src'
    ],
    ['python -m pytest --junitxml .github/x', 'python -m pytest --junitxml src/x.xml'],
    ['pnpm exec eslint -o .github/x src', 'pnpm exec eslint -o src/x src'],
    ['yarn eslint -o .github/x src', 'yarn eslint -o src/x src']
  ])('%s', expectPair)

  it('outside the working directory', () => {
    for (const command of [
      'eslint --cache --cache-location ../outside/c src',
      'mypy --cache-dir ../outside/m src',
      'ruff check --cache-dir /tmp/r src',
      'prettier --check --cache-location ~/p.json src'
    ]) {
      expect(decided(command)[1]).toBe('deny')
    }
  })
})

describe("a script's arguments (`npm test -- ARGS`): read as each tool it may run would", () => {
  it.each([
    ['npm test -- --json --outputFile .github/x', 'npm test -- --json --outputFile src/x.json'],
    ['npm run lint -- -o .github/x', 'npm run lint -- -o src/x'],
    ['npm test -- --coverageDirectory=scripts/c', 'npm test -- --coverageDirectory=src/c']
  ])('%s', expectPair)

  it('leaves the usual arguments alone', () => {
    for (const command of [
      'npm test -- --watchAll=false',
      'npm test -- -t adds src/a.test.ts',
      'npm test -- --coverage'
    ]) {
      expect(decided(command)).toEqual([command, 'allow', ''])
    }
  })

  it('reads a module given to the test runner as code', () => {
    expect(decided('npm test -- --setupFiles ./src/x.js')[2]).toBe('runs-code')
  })
})

describe('rewriting the files they check: an in-place write of each, as sed -i', () => {
  it.each([
    ['eslint --fix scripts/check.js', 'eslint --fix src/a.ts'],
    ['npx eslint --fix scripts', 'npx eslint --fix src'],
    ['prettier --check --write .github/workflows/ci.yml', 'prettier --check --write src'],
    ['prettier -w scripts', 'prettier -w src/a.ts'],
    ['ruff check --fix scripts', 'ruff check --fix src'],
    ['ruff check --fix-only .github', 'ruff check --fix-only src'],
    ['ruff check --add-noqa scripts', 'ruff check --add-noqa src'],
    ['ruff format scripts', 'ruff format src'],
    ['python -m ruff format .github', 'python -m ruff format src']
  ])('%s', expectPair)

  it('a check that rewrites nothing is not a write', () => {
    for (const command of [
      'eslint --fix-dry-run scripts',
      'prettier --check scripts',
      'ruff format --check scripts',
      'ruff format --diff .',
      'ruff check scripts',
      'eslint --no-fix scripts'
    ]) {
      expect(decided(command)).toEqual([command, 'allow', ''])
    }
  })

  it('with no file named, the tree of the working directory', () => {
    expect(decided('ruff format')[1]).toBe('deny')
    expect(decided('prettier --write .')[1]).toBe('deny')
  })
})

describe('code they load: a configuration that is code, a plugin, a formatter, a program', () => {
  it.each([
    ['eslint -c src/eslint.config.mjs src', 'eslint src'],
    ['npx eslint --config=src/eslint.config.mjs src', 'npx eslint src'],
    ['eslint -f ./src/fmt.cjs src', 'eslint -f json src'],
    ['eslint --format=src/fmt.cjs src', 'eslint --format=stylish src'],
    ['eslint --plugin evil src', 'eslint --max-warnings 0 src'],
    ['eslint --rulesdir src/rules src', 'eslint --rule "no-console: 2" src'],
    ['prettier --check --plugin=./src/p.mjs src', 'prettier --check --print-width 100 src'],
    // a configuration in any format names plugins (`{"plugins": ["./x.mjs"]}`)
    ['prettier --check --config src/p.json src', 'prettier --check src'],
    ['jest --setupFiles ./src/x.js', 'jest src/a.test.ts'],
    ['jest -c src/jest.config.js', 'jest -t adds'],
    ['jest --testEnvironment ./src/env.js', 'jest --testEnvironment jsdom'],
    ['vitest run -c src/v.config.mjs', 'vitest run src'],
    ['mypy --config-file src/mypy.ini src', 'mypy --strict src'],
    ['mypy --config src/mypy.ini src', 'mypy --ignore-missing-imports src'],
    ['mypy --python-executable ./src/py.sh src', 'mypy --python-version 3.12 src'],
    ['mypy --install-types src', 'mypy --no-site-packages src'],
    ['pnpm exec eslint -c src/x.mjs src', 'pnpm exec eslint src']
  ])('%s', (denied, allowed) => expectPair(denied, allowed, 'runs-code'))
})

describe("Ruff's configuration, which can turn fixing on and say where it writes", () => {
  it.each([
    ['ruff check --config src/ruff.toml src', 'ruff check --config "line-length = 100" src'],
    ['ruff --config src/ruff.toml check src', 'ruff check src'],
    ['ruff check --config "fix = true" src', 'ruff check --config "lint.select = [\'E\']" src'],
    ['ruff check --config "output-file = \'x\'" src', 'ruff check --select E src'],
    // a quoted key may spell any setting with TOML escapes; `extend` loads another configuration
    [
      'ruff check --config \'"f\\u0069x" = true\' src',
      'ruff check --config "lint.select = [\'E\']" src'
    ],
    [
      'ruff check --config \'"fix"=true\' src',
      'ruff check --config "format.quote-style = \'single\'" src'
    ],
    [
      'ruff check --config \'extend = "src/r.toml"\' src',
      'ruff check --config "target-version = \'py312\'" src'
    ],
    ['ruff format --check --config \'"cache-\\u0064ir" = "/tmp/x"\' src', 'ruff format --check src']
  ])('%s', (denied, allowed) => expectPair(denied, allowed, 'writes-unknown'))
})

describe('an option only known at run time', () => {
  it.each([
    ['eslint "$OPTS" src', 'eslint src'],
    ['mypy @args.txt src', 'mypy src'],
    ['ruff check "$X" src', 'ruff check src']
  ])('%s', (denied, allowed) => expectPair(denied, allowed, 'dynamic-argument'))
})

describe('a known option whose value only is known at run time', () => {
  it('is that option: judged by what it does with the value', () => {
    expect(decided('npm test -- --testNamePattern=$NAME')).toEqual([
      'npm test -- --testNamePattern=$NAME',
      'allow',
      ''
    ])
    expect(decided('jest --outputFile=$OUT')[1]).toBe('deny')
    expect(decided('eslint --config=$CONFIG src')[2]).toBe('runs-code')
  })
})

describe('the fourth review: what the first fix missed, by class', () => {
  it("a script's arguments name the files --fix rewrites; without any, the script's own (as `npm run fix`)", () => {
    expectPair('npm run lint -- --fix scripts', 'npm run lint -- --fix src')
    expectPair('npm run format -- --write .github/workflows', 'npm run lint -- --fix')
  })

  it('an option with a value that also writes a file of its own (the suppressions)', () => {
    expectPair(
      'cd scripts && eslint --suppress-rule semi .',
      'cd src && eslint --suppress-rule semi .'
    )
  })

  it('options that start other programs or load modules, however rarely used', () => {
    for (const [denied, allowed] of [
      ['eslint --mcp', 'eslint --max-warnings 0 src'],
      ['eslint src --mcp', 'eslint src'],
      ['jest --coverageReporters=./src/rep.js', 'jest --coverageReporters=lcov,text'],
      ['jest --coverage-reporters ./src/rep.js', 'jest --coverage-reporters json-summary'],
      ['jest src --snapshotSerializers=./src/ser.js', 'jest src'],
      ['npm test -- --snapshotSerializers=./src/ser.js', 'npm test -- src'],
      ['jest --moduleNameMapper=\'{"^x$":"/etc/passwd"}\'', 'jest --testTimeout=10000'],
      ['jest --modulePaths=/tmp/outside', 'jest --modulePaths=src'],
      ['jest --roots ../outside', 'jest --roots src'],
      [
        "python -m pytest -W 'ignore::src.plug.W' tests",
        "python -m pytest -W 'ignore::DeprecationWarning' tests"
      ],
      ['python -m pytest -Werror::src.plug.W', 'python -m pytest -Werror'],
      ['python -m pytest @src/args.txt tests', 'python -m pytest tests'],
      ['vitest run --coverage.reporter=./src/rep.js', 'vitest run --coverage.reporter=lcov'],
      ['vitest run --coverage.customProviderModule=./src/p.js', 'vitest run --coverage.enabled'],
      ['vitest run --browser.provider=./src/x.js', 'vitest run --browser.provider=playwright'],
      ['vitest run --typecheck.checker=./src/x.sh', 'vitest run --typecheck.checker=tsc'],
      ['vitest run --pool=./src/pool.js', 'vitest run --pool=forks']
    ]) {
      expect([denied, decided(denied as string)[1]]).toEqual([denied, 'deny'])
      expect(decided(allowed as string)).toEqual([allowed, 'allow', ''])
    }
  })
})

describe("an option named like an object's own property is an unknown option, nothing more", () => {
  it.each([
    ['eslint --constructor -o .github/x src', 'eslint --constructor -o src/x src'],
    ['jest --__proto__ --outputFile=.github/x', 'jest --__proto__ --outputFile=src/x']
  ])('%s', expectPair)

  it('a module named like one (`python -m constructor`) is a module the policy does not read', () => {
    expect(decided('python -m constructor x')).toEqual(['python -m constructor x', 'allow', ''])
    expect(decided('python -m toString -m pytest')).toEqual([
      'python -m toString -m pytest',
      'allow',
      ''
    ])
  })
})

describe('a pattern the tool expands itself (quoted, so the shell leaves it)', () => {
  it.each([
    ["prettier --write '**/*.yml'", "prettier --write 'src/**/*.ts'"],
    ["npx prettier -w '{src,.github}/**'", "npx prettier -w 'src/{a,b}.ts'"],
    ["prettier -l -w '*.json'", "prettier -l -w 'src/*.json'"],
    ["npx eslint --fix '**/*.js'", "npx eslint --fix 'src/**/*.js'"],
    ["ruff format '**/*.py'", "ruff format 'src/**/*.py'"],
    ["npx pnpm exec prettier --write '.git*/**'", "npx pnpm exec prettier --write 'src/?.ts'"]
  ])('%s', expectPair)
})

describe('the tables checked against the tools themselves (linter-tables.test.ts): what they found', () => {
  it.each([
    // a flag of the tool read as an option with a value swallowed the option after it
    ['jest --logHeapUsage --outputFile .github/x', 'jest --logHeapUsage --outputFile src/x.json'],
    ['jest --workerThreads --outputFile .github/x', 'jest --workerThreads --outputFile src/x'],
    // an option ESLint still reads (deprecated) where it writes its cache
    ['eslint --cache --cache-file .github/x src', 'eslint --cache --cache-file src/x src'],
    ['eslint --cache-file=.github/x --cache src', 'eslint --cache-file=src/x --cache src'],
    // Vitest's options for what it writes
    ['vitest --attachmentsDir .github/a', 'vitest --attachmentsDir src/a'],
    ['vitest bench --outputJson .github/x', 'vitest bench --outputJson src/x.json'],
    ['vitest list --json .github/x', 'vitest list --json src/x.json']
  ])('%s', (denied, allowed) => expectPair(denied, allowed))

  it('the value after an option is read both ways when it looks like an option (-o --fix)', () => {
    // minimist, mri and argparse read `--write` as an option, optionator as -o's value
    expect(decided('prettier --cache-location --write .github/ci.yml')[2]).toBe('protected')
    expect(decided('eslint -o --fix src')[1]).toBe('allow')
    expect(decided('eslint -o --fix .github')[2]).toBe('protected')
    expect(decided('vitest --bail --outputFile .github/x')[2]).toBe('protected')
    expect(decided('vitest --bail --outputFile src/x')[1]).toBe('allow')
  })

  it.each([
    // Jest 29's --env, Jest 30's alias of --testEnvironment
    ['jest --env ./src/env.js', 'jest --env node'],
    ['npx jest --env=./src/env.js', 'npx jest --env=jsdom'],
    ['vitest --reporters ./src/r.js', 'vitest --reporters verbose'],
    ['vitest --diff ./src/diff.js', 'vitest --diff.expand'],
    ['vitest --workspace vitest.workspace.ts', 'vitest --project unit'],
    [
      'vitest --poolOptions.forks.execArgv=--require=./src/x.js',
      'vitest --poolOptions.forks.singleFork'
    ],
    ['vitest --pool-options.threads ./x', 'vitest --poolOptions.threads.maxThreads=2'],
    ['vitest --coverage.provider ./src/p.js', 'vitest --coverage.provider v8'],
    ['vitest --browser.providerOptions.launch.executablePath=./x', 'vitest --browser.headless'],
    ['vitest --api.allowExec', 'vitest --run'],
    ['vitest --inspect-brk', 'vitest --run'],
    ['vitest init browser', 'vitest run browser'],
    ['npm test -- --poolOptions.vmForks.execArgv=--import=./x.js', 'npm test -- --coverage.enabled']
  ])('%s', (denied, allowed) => expectPair(denied, allowed, 'runs-code'))

  it.each([
    // a dotted key of Vitest's configuration this engine does not model
    ['vitest --coverage.customReporter=./x', 'vitest --coverage.all'],
    ['vitest --typecheck.foo=$X', 'vitest --typecheck.only'],
    ['vitest --coverage.thresholds.autoUpdate', 'vitest --coverage.thresholds.lines 80'],
    ['jest --init', 'jest --ci']
  ])('%s', (denied, allowed) => expectPair(denied, allowed, 'writes-unknown'))
})

describe('the fifth review: what the linters’ fix missed, by class', () => {
  it.each([
    // hidden options (mypy's help=SUPPRESS) that write where they point
    ['mypy --timing-stats .github/x src', 'mypy --timing-stats src/t.txt src'],
    ['python -m mypy --timing .github/x src', 'python -m mypy --timing src/t.txt src'],
    ['mypy --line-checking-stats .github src', 'mypy --line-checking-stats src/s src'],
    ['eslint --o .github/out.txt src', 'eslint --o src/out.txt src'],
    // what a package runner starts is followed as when run directly: a writer, a shell
    ['npx tee .github/x', 'npx tee src/x'],
    ['pnpm exec tee package.json', 'pnpm exec tee src/x'],
    ['yarn exec tee -a .github/x', 'yarn exec tee -a src/x'],
    ["npx sh -c 'npx eslint -o .github/x src'", "npx sh -c 'npx eslint -o src/x src'"],
    ["npm exec -- bash -c 'yarn jest --outputFile .github/x'", "npm exec -- bash -c 'yarn jest'"],
    ['prettier --w .github/ci.yml', 'prettier --w src/a.ts'],
    ['vitest --coverage.htmlDir .github/h', 'vitest --coverage.htmlDir src/h']
  ])('%s', (denied, allowed) => expectPair(denied, allowed))

  it('a flag whose default output the rules do not allow: the coverage tree', async () => {
    const sources = await compile(
      `version: 1\nrules:\n  - { id: tools, decision: allow, shell: ["jest *", "vitest *", "npm *"] }\n  - { id: sources, decision: allow, write: ["src/**"] }\n`,
      ws.dir
    )
    const decide = (command: string) => sources.decide(shell(command)).decision
    for (const [denied, allowed] of [
      ['jest --coverage', 'jest --coverage --coverageDirectory src/cov'],
      ['jest --collectCoverage=true', 'jest --collectCoverage=false'],
      // read as Vitest would too: its coverage tree
      ['npm test -- --coverage', 'npm test -- --ci'],
      [
        'vitest run --coverage.enabled',
        'vitest run --coverage.enabled --coverage.reportsDirectory src/c'
      ],
      ['vitest run --coverage', 'vitest run']
    ] as const) {
      expect([denied, decide(denied), allowed, decide(allowed)]).toEqual([
        denied,
        'deny',
        allowed,
        'allow'
      ])
    }
  })

  it.each([
    [
      'mypy --cache-map src/a.py .github/a.meta.ff .github/a.data.ff src',
      'mypy --no-sqlite-cache src'
    ]
  ])('%s', (denied, allowed) => expectPair(denied, allowed, 'writes-unknown'))

  it.each([
    // a module or program named on the command line
    ['python -m pytest --trace --pdbcls=evil:Pdb src', 'python -m pytest src'],
    ['python -m pytest --trace --pdbcls src.evil:Pdb src', 'python -m pytest src'],
    ['python -m pytest -d --tx popen//python=./src/x.sh', 'python -m pytest -d --tx popen'],
    ["python -m pytest -d --tx 'ssh=host//python=python3'", "python -m pytest -d --tx '4*popen'"],
    ['prettier --config=src/p.yaml --check src', 'prettier --no-config --check src'],
    // a name that is not one of Jest 30's own reporters is a package Jest loads
    ['jest --reporters=verbose', 'jest --reporters=summary'],
    // Vitest's API and UI servers run what they are sent
    ['vitest --api.port=5555', 'vitest --run'],
    ['vitest --ui', 'vitest --run'],
    ['vitest --browser.api 63315', 'vitest --browser.headless'],
    // script arguments, however the package manager is asked to run the script
    ['yarn test --setupFiles ./src/evil.js', 'yarn test --runInBand'],
    ['yarn run test --setupFiles ./src/evil.js', 'yarn run test src/a.test.js'],
    ['yarn lint -c src/evil.mjs', 'yarn lint --max-warnings 0'],
    ['pnpm test -- --setupFiles ./src/e.js', 'pnpm test -- --ci'],
    ['pnpm run lint -c src/e.mjs', 'pnpm run lint --quiet'],
    ['npm -- test --setupFiles=./src/evil.js', 'npm -- test --ci'],
    ['npm -- run lint -c=src/e.mjs', 'npm -- run lint --quiet'],
    // in the directory the package manager moved to: its package.json and node_modules run
    ['pnpm -C src exec eslint -o w.yml', 'pnpm exec eslint -o src/w.txt'],
    ['pnpm --dir=src exec eslint -o w.txt', 'pnpm --dir=. exec eslint -o src/w.txt'],
    ['yarn --cwd src jest --outputFile w.json', 'yarn jest --outputFile src/w.json'],
    ['pnpm -C src test -- --outputFile w.json', 'pnpm test -- --outputFile src/w.json'],
    ['npm --prefix src test', 'npm test'],
    // a debugger reads Python from its input
    ['python -m pytest --trace src', 'python -m pytest src'],
    ['python -m pytest --pdb src', 'python -m pytest -x src'],
    // two dashes before a short option's letter: the same option for these parsers
    ['jest --c src/evil.config.js src', 'jest --ci src'],
    ['eslint --c src/e.js src', 'eslint --cache src'],
    ['vitest run --c src/v.mjs', 'vitest run --t foo'],
    ['vitest run --execArgv=--require=./src/x.cjs', 'vitest run --retry.count=2'],
    // a setting of npm's with a value before the program: the word after it may be either
    ['npx --loglevel silent eslint -c src/evil.mjs .', 'npx --loglevel silent eslint .'],
    ['npx --omit dev eslint -c src/e.mjs .', 'npx --yes eslint .'],
    ["pnpm --shell-mode exec 'eslint -c x'", 'pnpm exec eslint .']
  ])('%s', (denied, allowed) => expectPair(denied, allowed, 'runs-code'))
})

describe('more tools read from tables (more-linters.ts): black, isort, flake8, pylint, Mocha, Stylelint, markdownlint, Babel, esbuild', () => {
  let more: CompiledPolicy
  beforeAll(async () => {
    more = await compile(
      NARROW.replace(
        '"python *", "npm *", "cd *"]',
        '"python *", "npm *", "cd *", "black *", "isort *", "flake8 *", "pylint *", "mocha *", "stylelint *", "markdownlint *", "babel *", "esbuild *"]'
      ),
      ws.dir
    )
  })
  const pair = (denied: string, allowed: string) => {
    const d = more.decide(shell(denied))
    const a = more.decide(shell(allowed))
    return [denied, d.decision, d.decision === 'deny' ? d.rule : '', allowed, a.decision]
  }

  it.each([
    // formatters that rewrite the files they are given unless told only to check
    ['black .github/x.py', 'black --check .github/x.py'],
    ['black scripts', 'black --diff scripts'],
    ['isort .github', 'isort --check-only .github'],
    ['isort scripts/a.py', 'isort --diff scripts/a.py'],
    ['stylelint --fix .github/x.css', 'stylelint .github/x.css'],
    ['markdownlint -f .github', 'markdownlint .github'],
    // report and output files
    ['flake8 --output-file .github/x src', 'flake8 --output-file src/x src'],
    ['flake8 --output-f=scripts/x src', 'flake8 --output-f=src/x src'],
    ['pylint --output .github/x src', 'pylint --output src/x src'],
    ['stylelint -o .github/x src', 'stylelint -o src/x src'],
    ['markdownlint -o .github/x src', 'markdownlint -o src/x src'],
    ['babel src -d .github/lib', 'babel src -d src/lib'],
    ['babel src/a.js --out-file package.json', 'babel src/a.js --out-file src/b.js'],
    ['esbuild src/a.ts --outfile=.github/x.js', 'esbuild src/a.ts --outfile=src/x.js'],
    ['esbuild src/a.ts --metafile=package.json', 'esbuild src/a.ts --metafile=src/meta.json']
  ])('%s', (denied, allowed) => {
    expect(pair(denied, allowed)).toEqual([denied, 'deny', 'protected', allowed, 'allow'])
  })

  it.each([
    // modules, hooks and plugins named on the command line; a package's name stays allowed
    ['mocha -r ./src/hook.js src', 'mocha -r ts-node/register src'],
    ['mocha --require=src/hook.cjs src', 'mocha --require @babel/register src'],
    ['mocha --reporter ./src/r.js', 'mocha --reporter spec'],
    ['mocha --config .mocharc.yml', 'mocha --timeout 5000'],
    ['mocha -n require=./src/x.js', 'mocha -n enable-source-maps'],
    ["pylint --init-hook='import os' src", 'pylint --disable=C0114 src'],
    ['pylint --load-plugins=src.plug src', 'pylint -j 2 src'],
    ['pylint --rcfile=src/pylintrc src', 'pylint --output-format=json src'],
    ['pylint --output-format=src.rep.Reporter src', 'pylint -f parseable src'],
    ['stylelint --custom-formatter ./src/f.js src', 'stylelint -f json src'],
    ['stylelint --config src/s.json src', 'stylelint --max-warnings 0 src'],
    ['markdownlint -r ./src/rule.js src', 'markdownlint -c src/.markdownlint.json src'],
    [
      'babel --plugins ./src/p.js src -d src/lib',
      'babel --presets @babel/preset-env src -d src/lib'
    ],
    ['babel --config-file ./src/b.json src -d src/lib', 'babel --root-mode upward src -d src/lib']
  ])('%s', (denied, allowed) => {
    expect(pair(denied, allowed)).toEqual([denied, 'deny', 'runs-code', allowed, 'allow'])
  })
})
