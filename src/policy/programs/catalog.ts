/**
 * Every program the policy knows, one entry per program or family (see program.ts): the names,
 * the reading of unknown options and why, what it does (`effects`) or runs (`runs`), and example
 * command lines that __tests__/policy/programs.test.ts decides.
 */
import {
  COMPRESSOR_SUFFIX,
  compressorEffects,
  cpioEffects,
  fileEffects,
  tarEffects
} from './archives.js'
import { unzipEffects, zipEffects } from './archives.js'
import { awkEffects } from './awk.js'
import { copyEffects, rsyncEffects, scpEffects } from './copy.js'
import { curlEffects, wgetEffects } from './curl-wget.js'
import { chmodEffects, ddEffects, patchEffects, targetsEffects } from './files.js'
import { findEffects, findRuns } from './find.js'
import { gitEffects } from './git.js'
import { goEffects } from './go.js'
import { cargoEffects, gemEffects, gradleEffects, makeEffects, mavenEffects } from './builds.js'
import { jqEffects, yqEffects } from './jq-yq.js'
import { perlEffects } from './perl.js'
import {
  CSPLIT_ROWS,
  csplitEffects,
  filesListEffects,
  SORT_ROWS,
  sortEffects,
  splitEffects,
  UNIQ_ROWS,
  uniqEffects
} from './line-tools.js'
import { npmEffects } from './npm.js'
import { manEffects, pagerEffects, rgEffects } from './pagers.js'
import { pipEffects, pythonEffects } from './pip.js'
import { COMPLETE_TABLE, GETOPT_REFUSES, type Program } from './program.js'
import { checksumEffects, DATE_ROWS, dateEffects } from './printing.js'
import {
  babelEffects,
  blackEffects,
  esbuildEffects,
  flake8Effects,
  isortEffects,
  markdownlintEffects,
  mochaEffects,
  pylintEffects,
  stylelintEffects
} from './more-linters.js'
import { pytestEffects } from './pytest.js'
import { SED_ROWS, sedEffects } from './sed.js'
import { tscEffects } from './tsc.js'
import {
  eslintEffects,
  jestEffects,
  mypyEffects,
  prettierEffects,
  ruffEffects,
  vitestEffects
} from './linters.js'
import { ENV_ROWS, OPAQUE_RUNNERS, runs, SHELLS, XARGS_ROWS } from './wrappers.js'

const getopt = { allowed: true, reason: GETOPT_REFUSES } as const
const complete = { allowed: false, reason: COMPLETE_TABLE } as const
const noLongOptions = {
  allowed: true,
  reason:
    'a builtin or program without options that take a value: an unknown option is refused ' +
    'before it runs anything, and cannot take the command as its value'
} as const

export const PROGRAMS: readonly Program[] = [
  {
    names: ['sed', 'gsed'],
    options: SED_ROWS,
    unknownOptions: getopt,
    effects: sedEffects,
    examples: [
      ["sed -n '1,20p' src/a.ts", 'allow'],
      ["sed -i 's/a/b/' src/a.ts", 'allow'],
      ["sed -i 's/a/b/' .github/x.yml", 'deny', 'workflows'],
      ["sed 'e ls' f", 'deny', 'runs-code'],
      ["sed 'w .github/x' f", 'deny', 'workflows']
    ]
  },
  {
    names: ['find'],
    unknownOptions: {
      allowed: true,
      reason:
        'find reads its whole expression before it acts and refuses a primary it does not know'
    },
    effects: findEffects,
    runs: findRuns,
    examples: [
      ['find src -name "*.ts"', 'allow'],
      ['find . -fprint .github/x', 'deny', 'workflows'],
      // -name's argument that names an action is read as the action too (both readers agree)
      ['find . -name -fprint .github/x', 'deny', 'workflows'],
      ['find . -name -fprint src/list', 'allow'],
      ['find . -delete', 'deny']
    ]
  },
  {
    names: ['sort'],
    options: SORT_ROWS,
    unknownOptions: getopt,
    effects: sortEffects,
    examples: [
      ['sort src/a.ts', 'allow'],
      ['sort -o .github/x f', 'deny', 'workflows'],
      ['sort --compress-program=sh f', 'deny', 'runs-code'],
      ['sort -T .github f', 'deny', 'workflows']
    ]
  },
  {
    names: ['wc', 'du'],
    unknownOptions: getopt,
    effects: filesListEffects,
    examples: [
      ['wc -l src/a.ts', 'allow'],
      ['du -sh src', 'allow'],
      ['wc --files0-from=list', 'deny', 'reads-unknown'],
      ['du --files0=list', 'deny', 'reads-unknown'],
      ['sort --files0-from=list', 'deny', 'reads-unknown'],
      ['find -files0-from list -name x', 'deny', 'reads-unknown']
    ]
  },
  {
    names: ['jq', 'gojq', 'jaq'],
    unknownOptions: {
      allowed: true,
      reason: 'jq refuses an option it does not know; the options that take a file are read'
    },
    effects: jqEffects,
    examples: [
      ["jq -r '.scripts' package.json", 'allow'],
      ['jq -n \'import "x" as $x; $x\'', 'deny', 'reads-unknown'],
      ['jq -f filter.jq package.json', 'deny', 'reads-unknown'],
      ['jq ".$F" package.json', 'deny', 'reads-unknown'],
      ['jq "$F" package.json', 'deny', 'dynamic-argument']
    ]
  },
  {
    names: ['yq'],
    unknownOptions: {
      allowed: true,
      reason:
        'yq refuses an option it does not know; -i, --split-exp and --from-file are read, and ' +
        'its expression is scanned for the functions that load files'
    },
    effects: yqEffects,
    examples: [
      ["yq '.a' a.yml", 'allow'],
      ["yq -i '.a = 1' src/a.yml", 'allow'],
      ["yq -i '.a = 1' .github/x.yml", 'deny', 'workflows'],
      ['yq \'load("/srv/x")\' a.yml', 'deny', 'outside-workspace'],
      ["yq -n 'load(strenv(F))'", 'deny', 'reads-unknown']
    ]
  },
  {
    names: ['perl', 'ruby'],
    unknownOptions: {
      allowed: true,
      reason: 'every switch cluster is read; a switch that loads code denies'
    },
    effects: perlEffects,
    examples: [
      ["perl -ne 'print if /x/' src/a.ts", 'allow'],
      ["perl -pi -e 's/a/b/' src/a.ts", 'allow'],
      ["perl -pi -e 's/a/b/' .github/x.yml", 'deny', 'workflows'],
      ['perl -e \'open(F, "/srv/x")\'', 'deny', 'runs-code'],
      ['perl x.pl', 'deny', 'runs-code'],
      ['ruby -e \'puts File.read("x")\'', 'deny', 'runs-code']
    ]
  },
  {
    names: ['gem'],
    unknownOptions: getopt,
    effects: gemEffects,
    examples: [
      ['gem install x --install-dir vendor/gems', 'deny', 'default'],
      ['gem install x --install-dir .github', 'deny', 'workflows'],
      ['gem install --user-install x', 'deny', 'writes-unknown'],
      ['gem build x.gemspec -o .github/x.gem', 'deny', 'workflows'],
      ['gem list', 'allow']
    ]
  },
  {
    names: ['cargo'],
    unknownOptions: getopt,
    effects: cargoEffects,
    examples: [
      ['cargo build', 'allow'],
      ['cargo install --root .github x', 'deny', 'workflows'],
      ['cargo install x', 'deny', 'writes-unknown'],
      ['cargo build --target-dir=.github/t', 'deny', 'workflows'],
      ['cargo test -- --logfile .github/x', 'deny', 'workflows'],
      ['cargo --config \'target.x86_64-unknown-linux-gnu.runner="sh"\' test', 'deny', 'runs-code']
    ]
  },
  {
    names: ['go'],
    unknownOptions: getopt,
    effects: goEffects,
    examples: [
      ['go test ./...', 'allow'],
      ['go install example.com/x@latest', 'deny', 'writes-unknown'],
      ['go build -o .github/x .', 'deny', 'workflows'],
      ['go test -coverprofile=.github/c.out ./...', 'deny', 'workflows'],
      ['go test ./... -args -test.cpuprofile .github/x', 'deny', 'workflows'],
      ['go build -ldflags=-extld=./x .', 'deny', 'runs-code'],
      ['go test -exec sh ./...', 'deny', 'runs-code']
    ]
  },
  {
    names: ['make', 'gmake'],
    unknownOptions: getopt,
    effects: makeEffects,
    examples: [
      ['make', 'allow'],
      ['make -j4 test', 'allow'],
      ["make --eval='x:;id' x", 'deny', 'runs-code'],
      ['make -f /srv/Makefile', 'deny', 'runs-code'],
      ['make -E x', 'deny', 'runs-code'],
      ['make CC=sh', 'deny', 'runs-code']
    ]
  },
  {
    names: ['mvn', 'mvnw'],
    unknownOptions: getopt,
    effects: mavenEffects,
    examples: [
      ['mvn -DskipTests package', 'allow'],
      ['mvn -Dexec.executable=sh exec:exec', 'deny', 'runs-code'],
      ['mvn -DargLine=-javaagent:x.jar test', 'deny', 'runs-code'],
      ['mvn -s settings.xml test', 'deny', 'runs-code'],
      ['mvn -ssettings.xml test', 'deny', 'runs-code'],
      ['mvn -l .github/x test', 'deny', 'workflows']
    ]
  },
  {
    names: ['gradle', 'gradlew'],
    unknownOptions: getopt,
    effects: gradleEffects,
    examples: [
      ['gradle test', 'allow'],
      ['gradle -I init.gradle build', 'deny', 'runs-code'],
      ['gradlew --init-script=x.gradle build', 'deny', 'runs-code'],
      ['gradle -b other/build.gradle test', 'deny', 'runs-code'],
      ['gradle test --scan', 'deny', 'network']
    ]
  },
  {
    names: ['pytest', 'py.test'],
    unknownOptions: getopt,
    effects: pytestEffects,
    examples: [
      ['pytest -x tests', 'allow'],
      ['pytest -p evil', 'deny', 'runs-code'],
      ['pytest --rootdir=/srv tests', 'deny', 'runs-code'],
      ['pytest -o addopts=-pevil', 'deny', 'runs-code'],
      ['pytest --junitxml=src/report.xml', 'allow'],
      ['pytest --junit-xml=.github/workflows/ci.yml', 'deny'],
      ['pytest --log-file ../outside/log tests', 'deny'],
      ['pytest --debug .github/x tests', 'deny', 'workflows'],
      ['pytest --basetemp=src/tmp', 'allow'],
      ['pytest -o cache_dir=.github/c', 'deny', 'workflows'],
      ['pytest --pastebin=all', 'deny', 'network']
    ]
  },
  {
    names: ['uniq'],
    options: UNIQ_ROWS,
    unknownOptions: getopt,
    effects: uniqEffects,
    examples: [['uniq in .github/x', 'deny', 'workflows']]
  },
  {
    names: ['split'],
    unknownOptions: getopt,
    effects: splitEffects,
    examples: [['split f src/part', 'allow']]
  },
  {
    names: ['csplit'],
    options: CSPLIT_ROWS,
    unknownOptions: getopt,
    effects: csplitEffects,
    examples: [['csplit -f .github/x f 3', 'deny', 'workflows']]
  },
  {
    names: ['date'],
    options: DATE_ROWS,
    unknownOptions: getopt,
    effects: dateEffects,
    examples: [
      ['date', 'allow'],
      ['date -u +%Y-%m-%dT%H:%M:%SZ', 'allow'],
      ['date -s 2030-01-01', 'deny', 'writes-unknown'],
      ['date 010100002030', 'deny', 'writes-unknown'],
      ['date -j -f %s 0 +%F', 'allow']
    ]
  },
  {
    names: [
      'sha256sum',
      'sha1sum',
      'sha224sum',
      'sha384sum',
      'sha512sum',
      'md5sum',
      'b2sum',
      'cksum',
      'shasum'
    ],
    unknownOptions: getopt,
    effects: checksumEffects,
    examples: [
      ['sha256sum src/a.ts', 'allow'],
      ['sha256sum -c sums.txt', 'deny', 'reads-unknown'],
      ['md5sum --check sums.txt', 'deny', 'reads-unknown'],
      ['shasum -a 256 src/a.ts', 'allow']
    ]
  },
  {
    names: ['git'],
    unknownOptions: {
      allowed: true,
      reason:
        'git refuses a subcommand option it does not know before it acts; its global options ' +
        'and each subcommand with an effect are read by their own tables'
    },
    effects: gitEffects,
    examples: [
      ['git status', 'allow'],
      ['git diff --output=.github/x', 'deny', 'workflows'],
      ['git ls-remote origin', 'deny', 'network'],
      ['git tag -l', 'allow'],
      ['git tag v1.0', 'deny'],
      ['git -c core.pager=sh log', 'deny']
    ]
  },
  {
    names: ['file'],
    unknownOptions: getopt,
    effects: fileEffects,
    examples: [
      ['file src/a.ts', 'allow'],
      ['file -f list', 'deny', 'reads-unknown'],
      ['file --files-from=list', 'deny', 'reads-unknown']
    ]
  },
  {
    names: ['tar', 'gtar', 'bsdtar'],
    unknownOptions: getopt,
    effects: tarEffects,
    examples: [
      ['tar -tf a.tar', 'allow'],
      ['tar -xf a.tar -C .github', 'deny', 'workflows'],
      ['tar -cf host:a.tar src', 'deny', 'network'],
      ['tar -cf - -T list', 'deny', 'reads-unknown'],
      ['tar --null -Tlist0 -cf -', 'deny', 'reads-unknown'],
      ['tar -cf - --files-from list', 'deny', 'reads-unknown']
    ]
  },
  {
    names: ['cpio'],
    unknownOptions: getopt,
    effects: cpioEffects,
    examples: [
      ['cpio -t', 'allow'],
      ['cpio -it -F a.cpio', 'allow'],
      ['cpio -ov', 'deny', 'reads-unknown'],
      ['cpio -i -F a.cpio', 'deny', 'writes-unknown']
    ]
  },
  {
    names: ['unzip'],
    unknownOptions: {
      allowed: true,
      reason: 'unzip refuses an option letter it does not know before it extracts anything'
    },
    effects: unzipEffects,
    examples: [
      ['unzip -l a.zip', 'allow'],
      ['unzip a.zip -d .github', 'deny', 'workflows']
    ]
  },
  {
    names: ['zip'],
    unknownOptions: {
      allowed: true,
      reason: 'zip refuses an option it does not know before it writes the archive'
    },
    effects: zipEffects,
    examples: [
      ['zip .github/a.zip f', 'deny', 'workflows'],
      ['zip -r@ a.zip', 'deny', 'reads-unknown']
    ]
  },
  {
    names: Object.keys(COMPRESSOR_SUFFIX),
    unknownOptions: getopt,
    effects: compressorEffects,
    examples: [
      ['gzip -c f', 'allow'],
      ['gzip .github/x', 'deny', 'workflows']
    ]
  },
  {
    names: ['awk', 'gawk', 'mawk', 'nawk'],
    unknownOptions: getopt,
    effects: awkEffects,
    examples: [
      ["awk '{print $1}' f", 'allow'],
      ['awk \'{print > ".github/x"}\' f', 'deny', 'workflows'],
      ['awk \'BEGIN{system("ls")}\'', 'deny', 'runs-code']
    ]
  },
  {
    names: ['rg'],
    unknownOptions: getopt,
    effects: rgEffects,
    examples: [
      ['rg foo src', 'allow'],
      ['rg --pre sh foo', 'deny', 'runs-code']
    ]
  },
  {
    names: ['less', 'more'],
    unknownOptions: getopt,
    effects: pagerEffects,
    examples: [
      ['less +G f', 'allow'],
      ['less -o .github/x f', 'deny', 'workflows']
    ]
  },
  {
    names: ['man'],
    unknownOptions: getopt,
    effects: manEffects,
    examples: [['man -P sh ls', 'deny', 'runs-code']]
  },
  {
    names: ['cp', 'mv', 'install', 'ln'],
    unknownOptions: getopt,
    effects: copyEffects,
    examples: [
      ['cp a src/b', 'allow'],
      ['cp a .github/b', 'deny', 'workflows'],
      ['mv src/a .github/', 'deny', 'workflows'],
      ['cp -t .github a', 'deny', 'workflows']
    ]
  },
  {
    names: ['rsync'],
    unknownOptions: getopt,
    effects: rsyncEffects,
    examples: [
      ['rsync -a a src/b', 'allow'],
      ['rsync -e sh a b', 'deny', 'runs-code']
    ]
  },
  {
    names: ['scp'],
    unknownOptions: getopt,
    effects: scpEffects,
    examples: [['scp a host:b', 'deny', 'network']]
  },
  {
    names: ['rm', 'rmdir', 'unlink', 'shred', 'truncate', 'touch', 'mkdir', 'chown', 'chgrp'],
    unknownOptions: getopt,
    effects: targetsEffects,
    examples: [
      ['rm src/a.ts', 'allow'],
      ['rm -rf .github', 'deny', 'workflows'],
      ['touch .github/x', 'deny', 'workflows']
    ]
  },
  {
    names: ['chmod'],
    unknownOptions: {
      allowed: true,
      reason:
        'any other word starting with `-` is read as a mode (`chmod -x f`), its files as writes'
    },
    effects: chmodEffects,
    examples: [
      ['chmod +x src/run.sh', 'allow'],
      ['chmod -x .github/x', 'deny', 'workflows']
    ]
  },
  {
    names: ['dd'],
    unknownOptions: {
      allowed: true,
      reason: 'dd takes operands (`of=FILE`), no options; one it does not know makes it refuse'
    },
    effects: ddEffects,
    examples: [
      ['dd if=a of=src/b', 'allow'],
      ['dd if=a of=.github/b', 'deny', 'workflows']
    ]
  },
  {
    names: ['patch'],
    unknownOptions: getopt,
    effects: patchEffects,
    examples: [['patch -p1 < fix.diff', 'deny', 'writes-unknown']]
  },
  {
    names: ['curl'],
    unknownOptions: getopt,
    effects: curlEffects,
    examples: [
      ['curl https://docs.github.com/x', 'allow'],
      ['curl https://example.com/x', 'deny'],
      ['curl -o .github/x https://docs.github.com/x', 'deny', 'workflows']
    ]
  },
  {
    names: ['wget'],
    unknownOptions: getopt,
    effects: wgetEffects,
    examples: [
      ['wget -O - https://docs.github.com/x', 'allow'],
      ['wget https://example.com/x', 'deny']
    ]
  },
  {
    names: ['npm', 'npx', 'pnpm', 'yarn'],
    unknownOptions: {
      allowed: true,
      reason:
        'npm reads any --name as a configuration key: the keys that run code, fetch or name ' +
        'where it writes are read under every spelling npm accepts (npm-argv.ts); the others ' +
        'change nothing the policy checks'
    },
    effects: npmEffects,
    examples: [
      ['npm test', 'allow'],
      ['npm --prefix .github install', 'deny', 'workflows'],
      ['npm --script-shell=sh run x', 'deny', 'runs-code']
    ]
  },
  {
    names: ['tsc'],
    unknownOptions: {
      allowed: true,
      reason:
        'tsc refuses an option it does not know before it compiles or writes (only ' +
        '--generateCpuProfile starts first, and it is read wherever it stands); such an option ' +
        'takes no value, so the words after it are read as usual'
    },
    effects: tscEffects,
    examples: [
      ['tsc --noEmit', 'allow'],
      ['tsc --outDir src/out', 'allow'],
      ['tsc -outdir .github/x', 'deny', 'workflows'],
      ['npx tsc --noEmit --generateCpuProfile .github/x', 'deny', 'workflows'],
      ['tsc --noEmit -p ../outside/tsconfig.json', 'deny', 'reads-unknown'],
      ['tsc --noEmit @args.txt', 'deny', 'dynamic-argument'],
      ['tsc -b --clean', 'deny', 'writes-unknown']
    ]
  },
  {
    names: ['eslint'],
    unknownOptions: {
      allowed: true,
      reason:
        'ESLint refuses an option it does not know before it lints or writes; the options ' +
        'that write, rewrite the files or load code are read by name (linters.ts)'
    },
    effects: eslintEffects,
    examples: [
      ['eslint src', 'allow'],
      ['eslint -o .github/x src', 'deny', 'workflows'],
      ['eslint --fix .github/workflows', 'deny', 'workflows'],
      ['npx eslint -f ./src/fmt.cjs src', 'deny', 'runs-code'],
      ['eslint -c src/eslint.config.mjs src', 'deny', 'runs-code']
    ]
  },
  {
    names: ['prettier'],
    unknownOptions: {
      allowed: true,
      reason:
        'Prettier refuses an option it does not know; the options that write, rewrite the ' +
        'files or load code are read by name (linters.ts)'
    },
    effects: prettierEffects,
    examples: [
      ['prettier --check src', 'allow'],
      ['prettier --check --write .github/x.yml', 'deny', 'workflows'],
      ['prettier --check --plugin=./src/p.mjs src', 'deny', 'runs-code']
    ]
  },
  {
    names: ['jest'],
    unknownOptions: {
      allowed: true,
      reason:
        'Jest reads any option (yargs); the options that write or load modules are read by ' +
        'name, however spelled (linters.ts)'
    },
    effects: jestEffects,
    examples: [
      ['jest src/a.test.js', 'allow'],
      ['jest --json --outputFile=.github/x', 'deny', 'workflows'],
      ['jest --setupFiles ./src/x.js', 'deny', 'runs-code']
    ]
  },
  {
    names: ['vitest'],
    unknownOptions: {
      allowed: true,
      reason: 'the options that write or load modules are read by name (linters.ts)'
    },
    effects: vitestEffects,
    examples: [
      ['vitest run', 'allow'],
      ['vitest run --outputFile.json=.github/x', 'deny', 'workflows']
    ]
  },
  {
    names: ['mypy', 'dmypy'],
    unknownOptions: {
      allowed: true,
      reason:
        'mypy (argparse) refuses an option it does not know; a prefix of an option with an ' +
        'effect is read as that option (linters.ts)'
    },
    effects: mypyEffects,
    examples: [
      ['mypy src', 'allow'],
      ['mypy --junit-xml .github/x src', 'deny', 'workflows'],
      ['mypy --linecount .github src', 'deny', 'workflows'],
      ['mypy --config-file src/mypy.ini src', 'deny', 'runs-code'],
      ['mypy @args.txt', 'deny', 'dynamic-argument']
    ]
  },
  {
    names: ['ruff'],
    unknownOptions: {
      allowed: true,
      reason:
        'Ruff (clap) refuses an option it does not know; the options that write, rewrite the ' +
        'files or configure either are read by name (linters.ts)'
    },
    effects: ruffEffects,
    examples: [
      ['ruff check src', 'allow'],
      ['ruff format --check src', 'allow'],
      ['ruff check --fix .github', 'deny', 'workflows'],
      ['ruff format .github', 'deny', 'workflows'],
      ['ruff check --output-file .github/x src', 'deny', 'workflows'],
      ['ruff check --config src/ruff.toml src', 'deny', 'writes-unknown']
    ]
  },
  {
    names: ['black'],
    unknownOptions: {
      allowed: true,
      reason:
        'black (click) refuses an option it does not know; it rewrites the files it is given ' +
        'unless --check, --diff or --code (more-linters.ts)'
    },
    effects: blackEffects,
    examples: [
      ['black src/a.py', 'allow'],
      ['black --check .', 'allow'],
      ['black .github/x.py', 'deny', 'workflows'],
      ['black -l 100 .', 'deny', 'default']
    ]
  },
  {
    names: ['isort'],
    unknownOptions: {
      allowed: true,
      reason:
        'isort (argparse) refuses an option it does not know; it rewrites the files it is given ' +
        'unless --check-only, --diff or --stdout (more-linters.ts)'
    },
    effects: isortEffects,
    examples: [
      ['isort src/a.py', 'allow'],
      ['isort --check-only --diff .', 'allow'],
      ['isort .github', 'deny', 'workflows']
    ]
  },
  {
    names: ['flake8'],
    unknownOptions: {
      allowed: true,
      reason: 'flake8 (argparse) refuses an option it does not know (more-linters.ts)'
    },
    effects: flake8Effects,
    examples: [
      ['flake8 src', 'allow'],
      ['flake8 --output-file .github/x src', 'deny', 'workflows'],
      ['flake8 --output-f=src/report.txt src', 'allow']
    ]
  },
  {
    names: ['pylint'],
    unknownOptions: {
      allowed: true,
      reason:
        'pylint refuses an option it does not know; its hooks, plugins and rcfile are Python it ' +
        'runs (more-linters.ts)'
    },
    effects: pylintEffects,
    examples: [
      ['pylint src', 'allow'],
      ['pylint --output .github/x src', 'deny', 'workflows'],
      ["pylint --init-hook='import os' src", 'deny', 'runs-code'],
      ['pylint --load-plugins=src.plug src', 'deny', 'runs-code'],
      ['pylint --output-format=json:src/r.json src', 'deny', 'runs-code']
    ]
  },
  {
    names: ['mocha', '_mocha'],
    unknownOptions: {
      allowed: true,
      reason:
        'the options that load modules or write are read by name, however spelled (yargs; ' +
        'more-linters.ts)'
    },
    effects: mochaEffects,
    examples: [
      ['mocha -r ts-node/register src', 'allow'],
      ['mocha -r ./src/hook.js src', 'deny', 'runs-code'],
      ['mocha --reporter ./src/rep.js', 'deny', 'runs-code'],
      ['mocha --config .mocharc.yml', 'deny', 'runs-code']
    ]
  },
  {
    names: ['stylelint'],
    unknownOptions: {
      allowed: true,
      reason: 'the options that write, rewrite or load modules are read by name (more-linters.ts)'
    },
    effects: stylelintEffects,
    examples: [
      ["stylelint 'src/**/*.css'", 'allow'],
      ['stylelint --fix .github/x.css', 'deny', 'workflows'],
      ['stylelint --custom-formatter ./src/f.js src', 'deny', 'runs-code']
    ]
  },
  {
    names: ['markdownlint'],
    unknownOptions: {
      allowed: true,
      reason: 'markdownlint (commander) refuses an option it does not know (more-linters.ts)'
    },
    effects: markdownlintEffects,
    examples: [
      ['markdownlint src', 'allow'],
      ['markdownlint --fix .github', 'deny', 'workflows'],
      ['markdownlint -r ./src/rule.js src', 'deny', 'runs-code']
    ]
  },
  {
    names: ['babel'],
    unknownOptions: {
      allowed: true,
      reason: 'babel (commander) refuses an option it does not know (more-linters.ts)'
    },
    effects: babelEffects,
    examples: [
      ['babel src -d src/lib', 'allow'],
      ['babel src -d .github/lib', 'deny', 'workflows'],
      ['babel --plugins ./src/p.js src -d src/lib', 'deny', 'runs-code']
    ]
  },
  {
    names: ['esbuild'],
    unknownOptions: {
      allowed: true,
      reason: 'esbuild refuses an option it does not know; it runs no plugin from its command line'
    },
    effects: esbuildEffects,
    examples: [
      ['esbuild src/a.ts --bundle --outfile=src/out.js', 'allow'],
      ['esbuild src/a.ts --outfile=.github/x.js', 'deny', 'workflows'],
      ['esbuild src/a.ts --outdir=.github', 'deny', 'workflows']
    ]
  },
  {
    names: ['pip', 'pip3'],
    unknownOptions: {
      allowed: true,
      reason: 'pip (optparse) refuses an option it does not know before it acts'
    },
    effects: pipEffects,
    examples: [
      ['pip list', 'allow'],
      ['pip install --target src/vendor x', 'allow'],
      ['pip install --target .github x', 'deny', 'workflows'],
      ['pip download -d .github x', 'deny', 'workflows'],
      ['pip config set global.index-url https://example.com/simple', 'deny', 'writes-unknown'],
      ['pip install --user x', 'deny', 'writes-unknown'],
      ['pip install --prefix=/srv x', 'deny', 'outside-workspace'],
      ['pip install --index-url https://example.com/simple x', 'deny']
    ]
  },
  {
    names: ['python', 'python3'],
    unknownOptions: {
      allowed: true,
      reason: 'only `python -m pip` is read (as pip); what a script does is for the rules to allow'
    },
    effects: pythonEffects,
    examples: [['python -m pip install --index-url https://example.com/simple x', 'deny']]
  },
  {
    names: ['env'],
    options: ENV_ROWS,
    unknownOptions: complete,
    runs,
    examples: [
      ['env FOO=1 ls', 'allow'],
      ['env --not-an-option ls', 'deny', 'dynamic-command'],
      ["env -S 'touch .github/x'", 'deny', 'workflows']
    ]
  },
  {
    names: ['xargs'],
    options: XARGS_ROWS,
    unknownOptions: complete,
    runs,
    examples: [
      ['xargs rm < list', 'deny', 'default'],
      ['xargs --not-an-option ls', 'deny', 'dynamic-command']
    ]
  },
  {
    names: ['nice', 'timeout', 'stdbuf', 'sudo', 'time', 'watch', 'flock'],
    unknownOptions: complete,
    runs,
    examples: [
      ['timeout 5 sed -i s/a/b/ .github/x', 'deny', 'workflows'],
      ['time -o .github/x ls', 'deny', 'workflows'],
      ['nice -10 ls', 'allow']
    ]
  },
  {
    names: [
      'nohup',
      'builtin',
      'busybox',
      'setsid',
      'command',
      'exec',
      'doas',
      'eval',
      'trap',
      'source',
      '.',
      'mapfile',
      'readarray',
      'tee',
      'cd',
      'pushd',
      'popd'
    ],
    unknownOptions: noLongOptions,
    runs,
    examples: [
      ['nohup ls', 'allow'],
      ["eval 'sed -i s/a/b/ .github/x'", 'deny', 'workflows'],
      ['echo x | tee .github/x', 'deny', 'workflows']
    ]
  },
  {
    names: [...SHELLS],
    unknownOptions: {
      allowed: true,
      reason: 'a shell option does not run anything; `-c` and the script operand are read'
    },
    runs,
    examples: [
      ["sh -c 'ls'", 'allow'],
      ["bash -c 'touch .github/x'", 'deny', 'workflows']
    ]
  },
  {
    names: [...OPAQUE_RUNNERS],
    unknownOptions: {
      allowed: false,
      reason: 'the options of these runners are not modelled: any use with arguments is denied'
    },
    runs,
    examples: [['strace ls', 'deny', 'dynamic-command']]
  }
]
