/**
 * The policy's decision corpus: every request the policy tests decide, one line each —
 * `policy-hash kind request → decision rule | reason | segments` — sorted and deduplicated, so
 * two runs (before and after a refactoring) can be compared with `diff`.
 *
 *   npx tsx scripts/policy-corpus.ts > /tmp/corpus.txt
 *
 * Two sources: (1) jest runs __tests__/policy with a hook (policy-corpus-hook.ts) that records
 * every `decide` call with its policy; (2) every string literal in __tests__/policy/*.ts and every
 * command of the benign corpus is decided as a shell command by each built-in preset and by a
 * broad allow-all-shell policy, in a fixed workspace — this covers the rows the analyzer tests
 * check without a policy (commands.test.ts, shell.test.ts). Temporary directories are replaced
 * by `<tmp>`. Pass `--no-jest` for source (2) only.
 */
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import ts from 'typescript'
import { loadBenignCorpus, populateWorkspace } from '../bench/benign-corpus.js'
import type { Decision } from '../src/policy/index.js'
import { compilePolicy, PRESET_NAMES, presetText } from '../src/policy/index.js'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const testDir = path.join(root, '__tests__', 'policy')
const tmp = os.tmpdir()
const TMP_PATH = new RegExp(`${escape(tmp)}/[^/"' ]+`, 'gi')

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function normalize(text: string, ws: string): string {
  let t = text
  if (ws !== '') t = t.split(ws).join('<ws>')
  return t.replace(TMP_PATH, '<tmp>').replace(/\/proc\/\d+/g, '/proc/<pid>')
}

function hash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 10)
}

function line(policyId: string, request: unknown, decision: Decision, ws: string): string {
  const segments = (decision.segments ?? [])
    .map(
      (s) => `${s.text} :${s.decision}:${s.rule}:${s.reason ?? ''}:${(s.matched ?? []).join(',')}`
    )
    .join(' ;; ')
  const text =
    `${policyId} ${JSON.stringify(request)} → ${decision.decision} ${decision.rule}` +
    ` | ${decision.reason ?? ''} | ${(decision.matched ?? []).join(',')} | ${segments}`
  return normalize(text, ws).replace(/\n/g, '\\n')
}

const lines = new Set<string>()

// (1) every decide() of the policy tests
if (!process.argv.includes('--no-jest')) {
  const out = path.join(tmp, `policy-corpus-${process.pid}.jsonl`)
  rmSync(out, { force: true })
  const jest = spawnSync(
    process.execPath,
    [
      '--experimental-vm-modules',
      path.join(root, 'node_modules/jest/bin/jest.js'),
      '__tests__/policy',
      '--maxWorkers=1',
      '--silent',
      `--setupFilesAfterEnv=${path.join(root, 'scripts/policy-corpus-hook.ts')}`
    ],
    {
      cwd: root,
      env: { ...process.env, POLICY_CORPUS_OUT: out },
      stdio: ['ignore', 'ignore', 'pipe']
    }
  )
  const summary = jest.stderr
    .toString()
    .split('\n')
    .filter((l) => /^Tests:/.test(l))
  process.stderr.write(`jest: exit ${jest.status ?? 'signal'} ${summary.join(' ')}\n`)
  for (const raw of readFileSync(out, 'utf8').split('\n')) {
    if (raw === '') continue
    const r = JSON.parse(raw) as {
      ws: string
      policy: unknown
      request: unknown
      decision: Decision
    }
    const policy = JSON.parse(normalize(JSON.stringify(r.policy), r.ws)) as unknown
    lines.add('T ' + line(hash(policy), r.request, r.decision, r.ws))
  }
  rmSync(out, { force: true })
}

// (2) every string literal of the policy tests and the benign corpus, as a shell command
const literals = new Set<string>()
for (const file of readdirSync(testDir).sort()) {
  if (!file.endsWith('.ts')) continue
  const text = readFileSync(path.join(testDir, file), 'utf8')
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const visit = (node: ts.Node): void => {
    const parent = node.parent as ts.Node | undefined
    const specifier =
      parent !== undefined && (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent))
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && !specifier) {
      if (node.text.trim() !== '' && node.text.length < 2000) literals.add(node.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
}
for (const c of loadBenignCorpus()) literals.add(c.command)

const ws = path.join(tmp, 'policy-corpus-ws')
rmSync(ws, { recursive: true, force: true })
mkdirSync(ws, { recursive: true })
populateWorkspace(ws)
const BROAD = `version: 1
default: deny
rules:
  - { id: all-shell, decision: allow, shell: ["*"] }
  - { id: sources, decision: allow, write: ["src/**", "*.md", "/tmp/**"] }
  - { id: workflows, decision: deny, write: [".github/**"] }
  - { id: read-all, decision: allow, read: ["**"] }
  - { id: docs, decision: allow, url: ["docs.github.com", "https://*.npmjs.com/**"] }
`
const policies: Array<[string, string]> = [
  ...PRESET_NAMES.map((n): [string, string] => [`preset:${n}`, presetText(n)]),
  ['broad', BROAD]
]
for (const [name, text] of policies) {
  const policy = await compilePolicy(text, 'policy.yml', ws)
  for (const command of [...literals].sort()) {
    const request = { kind: 'shell' as const, fullCommandText: command }
    lines.add(`L ${line(name, request, policy.decide(request), ws)}`)
  }
}
rmSync(ws, { recursive: true, force: true })
process.stderr.write(`literals: ${literals.size}, lines: ${lines.size}\n`)
process.stdout.write([...lines].sort().join('\n') + '\n')
