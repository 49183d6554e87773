// The Copilot CLI binary the end-to-end suites drive, and the runtime it unpacks under HOME.
//
// On its first start under a HOME, the CLI unpacks its runtime (~235 MB: its JavaScript, ripgrep,
// the tree-sitter grammars) into HOME/.cache/copilot/pkg/<platform>/<version>: ~3 s of CPU, and
// the run waits for it. Behind the action's outer wall the CLI's HOME is a fresh private directory
// of the run holding, read-only, the runtime versions the real HOME has (src/wall/cli-sandbox.ts
// CLI_RUNTIME); one that HOME lacks is unpacked again on every run. So the global setup unpacks
// the runtime once into the real HOME (`ensureCliRuntime`, what any first use of the CLI on the
// machine does), and a runner-layout workspace's fresh HOME gets a linked copy of it
// (`linkCliRuntime`) unless a test asks for a HOME without one (test-support/action.ts).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** Where the CLI keeps its unpacked runtime under HOME (src/wall/cli-sandbox.ts CLI_RUNTIME). */
export const CLI_RUNTIME = path.join('.cache', 'copilot', 'pkg')

/** The real Copilot CLI binary: COPILOT_CLI_PATH (the version matrix), else the pinned devDependency. */
export function cliBinary() {
  if (process.env.COPILOT_CLI_PATH) return process.env.COPILOT_CLI_PATH
  const platformBinary = path.join(
    ROOT,
    'node_modules',
    '@github',
    `copilot-${process.platform}-${process.arch}`,
    'copilot'
  )
  return fs.existsSync(platformBinary)
    ? platformBinary
    : path.join(ROOT, 'node_modules', '.bin', 'copilot')
}

/**
 * The runtime's directory, relative to a HOME, for the platform binary `binary`
 * (`.cache/copilot/pkg/<platform>/<version>`, the version from the package.json beside it), or
 * undefined when that is not known (the npm loader, a binary without its package.json).
 */
export function cliRuntimePath(binary = cliBinary()) {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(path.dirname(binary), 'package.json'), 'utf8'))
    const platform = `${process.platform}-${process.arch}`
    if (pkg.name !== `@github/copilot-${platform}` || typeof pkg.version !== 'string') {
      return undefined
    }
    return path.join(CLI_RUNTIME, platform, pkg.version)
  } catch {
    return undefined
  }
}

/**
 * Unpacks the CLI's runtime into the real HOME when it is not there yet (`copilot --version`
 * unpacks it first). Returns its directory, or undefined when there is none to share.
 */
export function ensureCliRuntime(binary = cliBinary()) {
  const rel = cliRuntimePath(binary)
  if (rel === undefined || !fs.existsSync(binary)) return undefined
  const dir = path.join(os.homedir(), rel)
  if (!fs.existsSync(path.join(dir, 'index.js'))) {
    try {
      execFileSync(binary, ['--version'], { stdio: 'ignore', timeout: 120_000 })
    } catch {
      return undefined
    }
  }
  return fs.existsSync(path.join(dir, 'index.js')) ? dir : undefined
}

/**
 * Gives `home` the runtime the real HOME has for `binary` (hard links, a copy across file
 * systems; never the CLI's `inuse.*` markers), as a HOME where the CLI ran before holds it.
 * Returns whether it did. The CLI never writes its unpacked files (behind the wall they are
 * read-only); the tests that need a HOME the CLI unpacks into ask for one without it.
 */
export function linkCliRuntime(home, binary = cliBinary()) {
  const rel = cliRuntimePath(binary)
  if (rel === undefined) return false
  const source = path.join(os.homedir(), rel)
  if (!fs.existsSync(path.join(source, 'index.js'))) return false
  copyTree(source, path.join(home, rel))
  return true
}

function copyTree(from, to) {
  fs.mkdirSync(to, { recursive: true })
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (entry.name.startsWith('inuse.')) continue
    const source = path.join(from, entry.name)
    const target = path.join(to, entry.name)
    if (entry.isDirectory()) copyTree(source, target)
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target)
    else {
      try {
        fs.linkSync(source, target)
      } catch {
        fs.copyFileSync(source, target)
      }
    }
  }
}
