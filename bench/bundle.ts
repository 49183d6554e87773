/**
 * The bundle: its size, and how long importing it takes in a fresh node process.
 *
 * The entry starts the CLI when it can, imports the main chunks, and runs `await run()`. With no
 * INPUT_PROMPT set, nothing is started and run() stops at the first check of the settings (a
 * one-line `::error::`, no policy, no CLI), so timing `await import(bundle)` inside a fresh
 * `node --input-type=module -e` measures reading, compiling and evaluating the entry and the
 * chunks a run loads (plus microseconds of settings). The size counts every chunk, also the
 * install-only one. The same process also reports when user code began
 * (node's own startup), which is not the bundle's cost. Median of several runs after a warm-up.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { median } from './e2e.js'

const PROBE = `
const start = performance.now()
try { await import(process.env.BENCH_BUNDLE) } catch {}
process.stderr.write('\\nBENCH ' + JSON.stringify({ importMs: performance.now() - start, nodeMs: start }) + '\\n')
`

export interface BundleResult {
  /** The entry and every chunk beside it (`<id>.index.js`, loaded by dynamic import). */
  bytes: number
  entryBytes: number
  chunks: string[]
  importMs: number
  nodeStartMs: number
  processMs: number
}

export function bundle(file: string, runs = 9): BundleResult {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bundle-'))
  try {
    const samples: Array<{ importMs: number; nodeMs: number; processMs: number }> = []
    for (let i = 0; i <= runs; i++) {
      const start = performance.now()
      const result = spawnSync(process.execPath, ['--input-type=module', '-e', PROBE], {
        cwd,
        // no INPUT_* at all: run() fails fast at the settings
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          GITHUB_WORKSPACE: cwd,
          BENCH_BUNDLE: pathToFileURL(file).href
        },
        encoding: 'utf8',
        timeout: 30_000
      })
      const processMs = performance.now() - start
      const line = /BENCH (\{.*\})/.exec(result.stderr)?.[1]
      if (!line || !result.stdout.includes('::error::')) {
        throw new Error(
          `loading ${file} did not fail fast at the settings:\n${result.stdout}\n${result.stderr}`
        )
      }
      if (i > 0)
        samples.push({ ...(JSON.parse(line) as { importMs: number; nodeMs: number }), processMs })
    }
    const dir = path.dirname(file)
    const chunks = fs.readdirSync(dir).filter((name) => /^\d+\.index\.js$/.test(name))
    const entryBytes = fs.statSync(file).size
    return {
      bytes: chunks.reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, entryBytes),
      entryBytes,
      chunks,
      importMs: median(samples.map((s) => s.importMs)),
      nodeStartMs: median(samples.map((s) => s.nodeMs)),
      processMs: median(samples.map((s) => s.processMs))
    }
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true })
  }
}
