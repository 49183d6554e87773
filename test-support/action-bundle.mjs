// The action's sources, bundled once per test run for the end-to-end suites to start.
//
// Every end-to-end run starts the action as a process of its own. Through tsx, the ~150 modules of
// src/ load one by one behind its loader hooks: ~2.5 s of CPU before the action does anything,
// on every run. esbuild bundles the same sources in about a second, once per test run (the global
// setup), and a run loads the bundle in ~1.2 s. The bundle is the sources as they are when the run
// starts, never the committed dist/ (test-support/action.ts `entry: 'dist'` runs that one), and
// it keeps the entry's shape: src/index.ts starts the CLI, then imports the rest (its own chunk).
// Packages stay in node_modules, loaded as under tsx.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The variable that names the bundle's directory for the test workers (set by the global setup). */
export const BUNDLE_VARIABLE = 'AUTOPILOT_TEST_ACTION_BUNDLE'

/** The entries bundled: the action (action.yml `runs.main`) and its post step (`runs.post`). */
const ENTRIES = { index: 'src/index.ts', post: 'src/post.ts' }

/**
 * Bundles the action into a new directory of the checkout's git-ignored `.tmp/` (inside the
 * checkout, so that the bundle's imports find node_modules) and returns it.
 */
export function bundleAction() {
  const parent = path.join(ROOT, '.tmp')
  fs.mkdirSync(parent, { recursive: true })
  const outdir = fs.mkdtempSync(path.join(parent, 'test-action-'))
  esbuild.buildSync({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning'
  })
  return outdir
}

/** The bundled script of `entry` when the global setup made a bundle, else undefined. */
export function bundledEntry(entry) {
  const dir = process.env[BUNDLE_VARIABLE]
  if (!dir) return undefined
  const file = path.join(dir, `${entry}.mjs`)
  return fs.existsSync(file) ? file : undefined
}
