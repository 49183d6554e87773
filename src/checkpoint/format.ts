/**
 * The checkpoint of a run (issue 31): one JSON file the action writes beside the patch and reads
 * back, through this zod schema, to continue the run in a later job.
 *
 * Why JSON with base64 files, not a tar: the whole file is one value that one schema validates
 * before anything of it is used; a file in it is a relative path and bytes, nothing else, so there
 * is no link, device, mode or owner to refuse (a tar has all of them, and a reader that must refuse
 * them is a parser of its own); the paths are checked here, once, by the same schema. The cost is
 * a third more bytes than the files, which the size caps bound.
 *
 * What it holds: the session's state folder (COPILOT_HOME/session-state/<id>: events.jsonl,
 * workspace.yaml, plan.md, its files), the patch of the agent's changes against the starting
 * commit and that commit's id, the policy file's digest, the run's figures and why it ended, the
 * chain of runs it continues. Every secret the action knows is removed before it is written
 * (checkpoint/write.ts), and what did not fit under the caps is named in `cut`.
 */
import crypto from 'node:crypto'
import { z } from 'zod'

export const CHECKPOINT_FORMAT = 'copilot-autopilot-checkpoint'

/** Caps on what one checkpoint holds (and what a reader accepts). */
export const CHECKPOINT_LIMITS = {
  /** Any one file of the state folder, in bytes. */
  fileBytes: 16 * 1024 * 1024,
  /** All files of the state folder together, in bytes (before base64). */
  totalBytes: 48 * 1024 * 1024,
  /** Files in the state folder. */
  files: 2000,
  /** The patch, in characters. */
  patchChars: 16 * 1024 * 1024,
  /** The checkpoint file itself, in bytes, as a reader accepts it. */
  checkpointBytes: 80 * 1024 * 1024,
  /** Runs named in the chain. */
  chain: 50
} as const

/**
 * A path inside the state folder: relative, `/`-separated, no empty, `.` or `..` segment, no
 * backslash, no NUL, no leading `/` or drive: it can only name something inside the folder.
 */
export const RelativePath = z
  .string()
  .min(1)
  .max(500)
  .refine(
    (p) =>
      !p.startsWith('/') &&
      !/[\\\0]/.test(p) &&
      !/^[A-Za-z]:/.test(p) &&
      p.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..'),
    { message: 'must be a relative path inside the session folder (no "..", no absolute path)' }
  )

/** A session id as the CLI makes them (a UUID); it becomes a directory name. */
export const SessionId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/)

/** A git commit id. */
export const CommitId = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/)

/** How a run ended, as the chain and the next run's report name it. */
export const ChainLink = z.strictObject({
  runId: z.string().max(40),
  /** The run's status (`budget-exceeded`, `timed-out`, ...). */
  status: z.string().max(40),
  /** The limit that stopped it, as the comment says it: `max-ai-credits` 300. */
  stoppedAt: z.string().max(200).optional(),
  /** Why it ended, in one line (redacted). */
  reason: z.string().max(2000).optional(),
  /** AI credits it used (absent when Copilot did not bill it or the CLI did not say). */
  aiCredits: z.number().nonnegative().optional(),
  /** Input + output tokens it used. */
  tokens: z.number().nonnegative().optional()
})
export type ChainLink = z.infer<typeof ChainLink>

export const CheckpointFile = z.strictObject({
  path: RelativePath,
  /** The bytes, base64. */
  content: z.string().max(Math.ceil((CHECKPOINT_LIMITS.fileBytes * 4) / 3) + 4)
})

export const Checkpoint = z.strictObject({
  format: z.literal(CHECKPOINT_FORMAT),
  version: z.literal(1),
  createdAt: z.string().max(40),
  /** `owner/repo`, and the pull request or issue the run was for. */
  repository: z.string().max(200),
  target: z
    .strictObject({ kind: z.enum(['pr', 'issue']), number: z.number().int().positive() })
    .nullable(),
  /** This run: its id and how it ended. */
  run: ChainLink,
  /** The runs this one continued, oldest first. */
  chain: z.array(ChainLink).max(CHECKPOINT_LIMITS.chain),
  sessionId: SessionId,
  /** The commit the agent started from; the patch is against it. */
  startCommit: CommitId,
  /** The agent's changes against `startCommit` (git diff --binary), redacted. */
  patch: z.string().max(CHECKPOINT_LIMITS.patchChars),
  /** SHA-256 (hex) of the policy file the run used; null when it used the built-in one. */
  policySha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable(),
  /** The session's state folder. */
  files: z.array(CheckpointFile).max(CHECKPOINT_LIMITS.files),
  /** What was left out to stay under the caps (or because it was no regular file), with why. */
  cut: z.array(z.string().max(600)).max(CHECKPOINT_LIMITS.files)
})
export type Checkpoint = z.infer<typeof Checkpoint>

/** SHA-256 of bytes, hex. */
export function sha256(bytes: Buffer | string): string {
  return crypto.createHash('sha256').update(bytes).digest('hex')
}

/** The hidden line the sticky comment carries: the run and its checkpoint's digest. */
export function checkpointMarker(runId: string, digest: string): string {
  return `<!-- copilot-autopilot-checkpoint run=${runId.replace(/[^0-9A-Za-z_-]/g, '')} sha256=${digest} -->`
}

/**
 * The digest the action recorded in a comment: the hidden line at the very end of the body, where
 * only the action writes it (untrusted text in the comment has its HTML comments stripped, and is
 * never last). Undefined when there is none.
 */
export function markedDigest(body: string): { runId: string; digest: string } | undefined {
  const match =
    /\n<!-- copilot-autopilot-checkpoint run=([0-9A-Za-z_-]*) sha256=([0-9a-f]{64}) -->\s*$/.exec(
      body
    )
  return match?.[1] !== undefined && match[2] !== undefined
    ? { runId: match[1], digest: match[2] }
    : undefined
}
