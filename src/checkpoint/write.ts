/**
 * Writes a run's checkpoint (checkpoint/format.ts) once the CLI is gone: whenever a session
 * existed, however the run ended (completed, budget, timeout, cancel, failure). The file goes
 * beside the patch in RUNNER_TEMP (output `checkpoint-path`), mode 0600.
 *
 * Secrets: every secret the action knows (settings.secrets, normalized with their encoded forms)
 * is removed from everything in it, as in the events copy (reporting/events-file.ts): events.jsonl
 * line by line as JSON, other UTF-8 files as text, any other file byte for byte (each secret form
 * overwritten with as many `*`, so a binary file keeps its layout), the patch as text, the reasons
 * as text. Sizes are capped (CHECKPOINT_LIMITS): what is left out is named in `cut`, and logged.
 */
import fs from 'node:fs'
import path from 'node:path'
import { redactEventLine } from '../reporting/events-file.js'
import { redactNormalized } from '../text/safe-text.js'
import {
  CHECKPOINT_FORMAT,
  CHECKPOINT_LIMITS,
  Checkpoint,
  sha256,
  type ChainLink
} from './format.js'

export interface CheckpointInput {
  /** Where to write it. */
  file: string
  /** The session's state folder (COPILOT_HOME/session-state/<id>). */
  sessionDir: string
  sessionId: string
  startCommit: string
  /** The patch file of the agent's changes (absent: no change, or it could not be made). */
  patchPath: string | undefined
  /** The policy file the run used (absent: the built-in policy). */
  policyPath: string | undefined
  repository: string
  /** The pull request or issue the run was for. */
  target: { kind: 'pr' | 'issue'; number: number } | null
  run: ChainLink
  /** The runs this one continued, oldest first. */
  chain: readonly ChainLink[]
  /** The run's secrets, normalized (normalizeSecrets). */
  secrets: readonly string[]
  now?: Date
}

export interface WrittenCheckpoint {
  path: string
  sha256: string
  bytes: number
  /** What was left out, with why. */
  cut: string[]
}

/** Writes the checkpoint; throws when it cannot (the caller warns and goes on without one). */
export function writeCheckpoint(input: CheckpointInput): WrittenCheckpoint {
  const cut: string[] = []
  const files = stateFiles(input.sessionDir, input.secrets, cut)
  let patch = ''
  if (input.patchPath !== undefined && fs.existsSync(input.patchPath)) {
    const text = redactNormalized(fs.readFileSync(input.patchPath, 'utf8'), input.secrets)
    if (text.length > CHECKPOINT_LIMITS.patchChars) {
      cut.push(
        `the patch (${text.length.toLocaleString('en-US')} characters, over ${CHECKPOINT_LIMITS.patchChars.toLocaleString('en-US')}): the agent's changes are only in the patch file`
      )
    } else {
      patch = text
    }
  }
  const policySha256 =
    input.policyPath !== undefined && fs.existsSync(input.policyPath)
      ? sha256(fs.readFileSync(input.policyPath))
      : null
  const redactLink = (link: ChainLink): ChainLink => ({
    ...link,
    ...(link.reason === undefined
      ? {}
      : { reason: redactNormalized(link.reason, input.secrets).slice(0, 2000) })
  })
  const checkpoint = Checkpoint.parse({
    format: CHECKPOINT_FORMAT,
    version: 1,
    createdAt: (input.now ?? new Date()).toISOString(),
    repository: input.repository,
    target: input.target,
    run: redactLink(input.run),
    chain: input.chain.slice(-CHECKPOINT_LIMITS.chain).map(redactLink),
    sessionId: input.sessionId,
    startCommit: input.startCommit,
    patch,
    policySha256,
    files,
    cut
  } satisfies Checkpoint)
  const bytes = Buffer.from(JSON.stringify(checkpoint), 'utf8')
  fs.mkdirSync(path.dirname(input.file), { recursive: true })
  fs.rmSync(input.file, { force: true })
  fs.writeFileSync(input.file, bytes, { mode: 0o600, flag: 'wx' })
  return { path: input.file, sha256: sha256(bytes), bytes: bytes.length, cut }
}

/**
 * The state folder's regular files, redacted, events.jsonl and workspace.yaml first (a resume
 * needs them), then the rest smallest first, under the caps. Links and other non-regular entries
 * are never followed nor kept.
 */
function stateFiles(
  root: string,
  secrets: readonly string[],
  cut: string[]
): { path: string; content: string }[] {
  const found: { rel: string; size: number }[] = []
  const walk = (dir: string, rel: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const relPath = rel === '' ? entry.name : `${rel}/${entry.name}`
      if (entry.isDirectory()) walk(path.join(dir, entry.name), relPath)
      else if (entry.isFile()) {
        found.push({ rel: relPath, size: fs.lstatSync(path.join(dir, entry.name)).size })
      } else cut.push(`${relPath}: not a regular file`)
    }
  }
  walk(root, '')
  const rank = (rel: string): number =>
    rel === 'events.jsonl' ? 0 : rel === 'workspace.yaml' ? 1 : 2
  found.sort((a, b) => rank(a.rel) - rank(b.rel) || a.size - b.size || a.rel.localeCompare(b.rel))
  const files: { path: string; content: string }[] = []
  let total = 0
  for (const file of found) {
    const size = `${file.size.toLocaleString('en-US')} bytes`
    if (files.length >= CHECKPOINT_LIMITS.files) {
      cut.push(`${file.rel} (${size}): over ${CHECKPOINT_LIMITS.files} files`)
    } else if (file.size > CHECKPOINT_LIMITS.fileBytes) {
      cut.push(`${file.rel} (${size}): over the cap of one file`)
    } else if (total + file.size > CHECKPOINT_LIMITS.totalBytes) {
      cut.push(`${file.rel} (${size}): over the cap of the checkpoint`)
    } else {
      const bytes = redactFile(file.rel, fs.readFileSync(path.join(root, file.rel)), secrets)
      total += bytes.length
      files.push({ path: file.rel, content: bytes.toString('base64') })
    }
  }
  return files
}

/** One file with the secrets removed (see the module comment). */
export function redactFile(rel: string, bytes: Buffer, secrets: readonly string[]): Buffer {
  if (secrets.length === 0) return bytes
  const text = bytes.toString('utf8')
  const isText = Buffer.from(text, 'utf8').equals(bytes)
  if (isText) {
    if (rel.endsWith('.jsonl')) {
      return Buffer.from(
        text
          .split('\n')
          .map((line) => (line === '' ? line : redactEventLine(line, secrets)))
          .join('\n'),
        'utf8'
      )
    }
    return Buffer.from(redactNormalized(text, secrets), 'utf8')
  }
  const out = Buffer.from(bytes)
  for (const secret of secrets) {
    const needle = Buffer.from(secret, 'utf8')
    if (needle.length === 0) continue
    for (let at = out.indexOf(needle); at >= 0; at = out.indexOf(needle, at + needle.length)) {
      out.fill(0x2a, at, at + needle.length)
    }
  }
  return out
}
