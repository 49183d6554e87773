/**
 * Whether a policy lets the agent run code of its own choosing: a shell allow rule for a program
 * that runs the project's code (`npm test`, `node *`, `make`, `pytest`, a shell), or for any
 * program (`*`). Such a policy needs the OS sandbox as its second wall (what the agent's test
 * code does, no command parser sees); one that allows none (read-only) is held by the rules.
 */
import type { CompiledRule } from './engine.js'

/** Programs that run code the agent can write (its scripts, tests, build files, configs). */
const CODE_RUNNERS = new Set([
  'node',
  'nodejs',
  'npm',
  'npx',
  'pnpm',
  'pnpx',
  'yarn',
  'bun',
  'bunx',
  'deno',
  'tsx',
  'ts-node',
  'jest',
  'vitest',
  'mocha',
  // configuration that is code, found in the tree (stylelint.config.js, babel.config.js,
  // .markdownlint.cjs, a pylintrc's init-hook)
  'stylelint',
  'babel',
  'markdownlint',
  'pylint',
  'eslint',
  'prettier',
  'python',
  'python3',
  'pytest',
  'py.test',
  'tox',
  'nox',
  'pip',
  'pip3',
  'uv',
  'poetry',
  'mypy',
  // their configuration in the tree (ruff.toml, pyproject.toml, tsconfig.json), which the agent or
  // the pull request can write, makes them write, read or fix beyond their command line
  // (`extend`, `cache-dir`, `fix`, `outDir`): the OS sandbox is the wall for them too
  'ruff',
  'tsc',
  'make',
  'gmake',
  'cmake',
  'ninja',
  'go',
  'cargo',
  'rustc',
  'mvn',
  'mvnw',
  'gradle',
  'gradlew',
  'java',
  'ant',
  'sbt',
  'dotnet',
  'ruby',
  'rake',
  'bundle',
  'rspec',
  'perl',
  'php',
  'composer',
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'pwsh',
  'swift',
  'xcodebuild',
  'bazel',
  'just',
  'task'
])

/** Package-manager commands that only list or print: they run no package's scripts. */
const INERT_SUBCOMMANDS = new Set([
  'ls',
  'list',
  'view',
  'info',
  'outdated',
  'why',
  'explain',
  'help'
])

/** The first shell allow (or ask) rule that lets the agent run code, as `id (pattern)`. */
export function codeExecutionRule(rules: readonly CompiledRule[]): string | undefined {
  for (const rule of rules) {
    if (rule.matcher !== 'shell' || rule.decision === 'deny') continue
    for (const pattern of rule.patterns) {
      if (runsCode(pattern)) return `${rule.id} (${JSON.stringify(pattern)})`
    }
  }
  return undefined
}

/** Whether a shell pattern allows a program that runs code, or any program. */
function runsCode(pattern: string): boolean {
  const words = pattern.trim().split(/\s+/)
  // leading assignments (`CI=true npm test`) are not the program
  while (words.length > 1 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string)) words.shift()
  const first = words[0] ?? ''
  if (first.startsWith('*')) return true
  const program = first.slice(first.lastIndexOf('/') + 1).replace(/\*.*$/, '')
  if (CODE_RUNNERS.has(program)) {
    // a package manager's listing commands run no package's scripts
    const sub = words[1] ?? ''
    return !(/^(?:npm|pnpm|yarn)$/.test(program) && INERT_SUBCOMMANDS.has(sub))
  }
  // a star inside the program name (`n*`, `python*`) may name one
  return first.includes('*') && [...CODE_RUNNERS].some((r) => r.startsWith(program))
}
