/**
 * The workspace audit's cost before the first model request (`npm run bench -- --only audit`):
 * on a git checkout of 100,000 files (as actions/checkout leaves it: committed, the index
 * written by git), what the action does before it sends the prompt: the audit's start
 * (`WorkspaceAudit.start`: the walk, the protected files' copies), its git tree of the start
 * (`ready`), and the start of the agent's changes (`AgentChanges.start`). Then one check after a
 * small change (the audit after the agent's turn). Prints one JSON line.
 *
 *   npx tsx bench/audit.ts [--files N] [--runs N]
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { compilePolicy, protectedNames } from '../src/policy/index.js'
import { WorkspaceAudit } from '../src/session/audit.js'
import { AgentChanges } from '../src/session/changes.js'

const { values } = parseArgs({
  options: { files: { type: 'string', default: '100000' }, runs: { type: 'string', default: '3' } }
})
const files = Number(values.files)
const runs = Math.max(1, Number(values.runs))

/** A checkout of `count` files in 1,000 directories, committed; reused across runs. */
function checkout(count: number): string {
  const dir = path.join(os.tmpdir(), `autopilot-bench-audit-${count}`)
  if (fs.existsSync(path.join(dir, '.done'))) return dir
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  const perDir = 100
  for (let i = 0; i < count; i++) {
    const sub = path.join(dir, 'src', `d${Math.floor(i / perDir)}`)
    if (i % perDir === 0) fs.mkdirSync(sub, { recursive: true })
    fs.writeFileSync(path.join(sub, `f${i}.ts`), `export const v${i} = ${i}\n`)
  }
  fs.mkdirSync(path.join(dir, '.github', 'workflows'), { recursive: true })
  fs.writeFileSync(path.join(dir, '.github', 'workflows', 'ci.yml'), 'on: push\n')
  fs.writeFileSync(path.join(dir, '.gitignore'), 'node_modules/\n')
  const git = (...args: string[]): void => {
    execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' })
  }
  git('init', '-q')
  git('add', '-A')
  git('-c', 'user.email=a@b', '-c', 'user.name=a', 'commit', '-qm', 'start')
  fs.writeFileSync(path.join(dir, '.done'), '')
  git('update-index', '--refresh')
  return dir
}

const root = checkout(files)
const policy = await compilePolicy('version: 1\nextends: ci-fix\n', 'bench.yml', root)
const protection = {
  names: protectedNames(policy),
  decide: (file: string) => policy.decide({ kind: 'write', fileName: file })
}
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'autopilot-bench-audit-store-'))
const samples: Array<{
  start: number
  ready: number
  changes: number
  total: number
  check: number
}> = []
try {
  for (let run = 0; run < runs; run++) {
    const t0 = performance.now()
    const started = await WorkspaceAudit.start({
      root,
      storeDir: path.join(temp, 'audit'),
      protection,
      report: () => undefined,
      evidence: () => ({ tools: [], permissions: [] })
    })
    const t1 = performance.now()
    await started.audit.ready()
    const t2 = performance.now()
    const changes = new AgentChanges({
      root,
      storeDir: path.join(temp, 'changes'),
      patchPath: path.join(temp, 'patch'),
      excluded: [],
      seedStore: path.join(temp, 'audit')
    })
    await changes.start(await started.audit.startTree())
    const t3 = performance.now()
    fs.writeFileSync(path.join(root, 'src', 'd0', 'f0.ts'), `export const v0 = ${run}\n`)
    const t4 = performance.now()
    await started.audit.check()
    const t5 = performance.now()
    await changes.finish()
    started.audit.discard()
    execFileSync('git', ['-C', root, 'checkout', '-q', '--', 'src/d0/f0.ts'])
    samples.push({
      start: t1 - t0,
      ready: t2 - t1,
      changes: t3 - t2,
      total: t3 - t0,
      check: t5 - t4
    })
  }
} finally {
  fs.rmSync(temp, { recursive: true, force: true })
}
const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
console.log(
  JSON.stringify({
    files,
    runs,
    startMs: median(samples.map((s) => s.start)),
    readyMs: median(samples.map((s) => s.ready)),
    changesMs: median(samples.map((s) => s.changes)),
    beforePromptMs: median(samples.map((s) => s.total)),
    checkMs: median(samples.map((s) => s.check)),
    samples
  })
)
