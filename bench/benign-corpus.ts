/**
 * The benign corpus (`fixtures/benign-commands.json`): shell commands coding agents really ran,
 * quoted from public transcripts, each with its source and the built-in preset whose stated
 * intent covers it. Shared by `__tests__/policy/benign.test.ts` and `bench/benign.ts`.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { CompiledPolicy, Decision, PresetName } from '../src/policy/index.js'
import { PRESET_NAMES } from '../src/policy/index.js'

export interface BenignCommand {
  command: string
  /** Where the command was quoted from: a repository file (blob URL) or an issue thread. */
  source: string
  /** The built-in preset whose intent covers the command. */
  preset: PresetName
  /** Set for commands only a project of that ecosystem runs (`npm test`, `pytest`). */
  ecosystem?: 'node' | 'python'
  /** How the quoted command was adapted (a path made workspace-relative, a placeholder filled). */
  note?: string
}

export const CORPUS_FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'fixtures',
  'benign-commands.json'
)

function isBenignCommand(value: unknown): value is BenignCommand {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return (
    typeof v.command === 'string' &&
    typeof v.source === 'string' &&
    typeof v.preset === 'string' &&
    (PRESET_NAMES as readonly string[]).includes(v.preset) &&
    (v.ecosystem === undefined || v.ecosystem === 'node' || v.ecosystem === 'python') &&
    (v.note === undefined || typeof v.note === 'string')
  )
}

export function loadBenignCorpus(file = CORPUS_FILE): BenignCommand[] {
  const data: unknown = JSON.parse(fs.readFileSync(file, 'utf8'))
  if (!Array.isArray(data)) throw new Error(`${file}: not a list`)
  return data.map((entry, i) => {
    if (!isBenignCommand(entry)) throw new Error(`${file}: entry ${i} is not a benign command`)
    return entry
  })
}

/** Each preset and the presets that extend it (maintenance extends ci-fix extends read-only). */
const EXTENDED_BY: Record<PresetName, PresetName[]> = {
  'read-only': ['read-only', 'ci-fix', 'maintenance'],
  'ci-fix': ['ci-fix', 'maintenance'],
  maintenance: ['maintenance']
}

/** The presets that must allow a command whose intent is `preset`. */
export function presetsCovering(preset: PresetName): PresetName[] {
  return EXTENDED_BY[preset]
}

/**
 * Directories the corpus `cd`s into or lists, created in the workspace so that `cd` targets are
 * real directories inside it (as they were in the transcripts).
 */
export const WORKSPACE_DIRS = [
  'src',
  'web',
  'tests/temp/step-commit-push-test',
  '.claude-transcripts',
  '.ai-workflow/issue-830/00_planning/output'
]

export function populateWorkspace(dir: string): void {
  for (const d of WORKSPACE_DIRS) fs.mkdirSync(path.join(dir, d), { recursive: true })
  fs.writeFileSync(path.join(dir, 'package.json'), '{}\n')
}

/** The deciding rule of a denial and the simple command it decided, for reports. */
export function denialOf(decision: Decision): { rule: string; segment: string } {
  const denied = decision.segments?.find((s) => s.decision === 'deny')
  return { rule: denied?.rule ?? decision.rule, segment: denied?.text ?? decision.subject }
}

export interface PresetRate {
  preset: PresetName
  /** Commands whose intent this preset covers (its own and those of the presets it extends). */
  covered: number
  allowed: number
  denied: Array<{ command: string; intent: PresetName; rule: string; segment: string }>
}

/** Decides every command the preset's intent covers and counts the allowed ones. */
export function rateOf(
  preset: PresetName,
  policy: CompiledPolicy,
  corpus: BenignCommand[]
): PresetRate {
  const covered = corpus.filter((c) => presetsCovering(c.preset).includes(preset))
  const denied: PresetRate['denied'] = []
  for (const c of covered) {
    const decision = policy.decide({ kind: 'shell', fullCommandText: c.command })
    if (decision.decision !== 'allow')
      denied.push({ command: c.command, intent: c.preset, ...denialOf(decision) })
  }
  return { preset, covered: covered.length, allowed: covered.length - denied.length, denied }
}
