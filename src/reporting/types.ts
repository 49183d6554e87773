/**
 * The run report (JSON, `version: 1`). This is a public contract: the action writes it to
 * `report-path`, the comment and job summary are rendered from it, and `replay` reads it back.
 */
import type { PermissionRequest } from '../cli/protocol.js'

/**
 * How the run ended. `completed` only when the agent called task_complete, the CLI accepted it
 * and every verify command passed; `verify-failed` when the agent completed but a verify command
 * failed; `policy-violation` when the workspace audit after the session found a path changed
 * that the write rules forbid (it is reverted). The `status` output, the headline, the job summary and the step result all follow it.
 */
export const RUN_STATUSES = [
  'completed',
  'verify-failed',
  'incomplete',
  'failed',
  'timed-out',
  'cancelled',
  'budget-exceeded',
  'policy-violation'
] as const
export type RunStatus = (typeof RUN_STATUSES)[number]

/** What became of one tool call. A call the policy denied is `denied`, never `failed`. */
export type ToolOutcome = 'succeeded' | 'failed' | 'denied' | 'unfinished'

export interface ToolCallRecord {
  toolCallId: string
  name: string
  outcome: ToolOutcome
  /** As the CLI reported it (false for a denied call too); null while running / never completed. */
  success: boolean | null
  durationMs: number | null
  /** What the call was about: the shell command, the path, the URL, the pattern (short, redacted). */
  target?: string
  /** Why it failed, or why the policy denied it (short, redacted). */
  error?: string
  /** The policy rule that denied it. */
  rule?: string
  /** The subagent call (a `task` call) this call ran inside; absent for the agent's own calls. */
  parentToolCallId?: string
  /** When the call started (ISO), kept for calls that never finished: how long they ran. */
  startedAt?: string
}

/** Aggregate figures for one tool name, over every call (also those not kept in `tools`). */
export interface ToolStats {
  calls: number
  succeeded: number
  failed: number
  /** Calls the policy denied (not counted in `failed`). */
  denied: number
  durationMs: number
}

/** A subagent the agent started (a `task` tool call); its own calls name it as their parent. */
/** An MCP server of the run: from the `mcp-servers` input, or loaded by the CLI itself. */
export interface McpServerRecord {
  name: string
  /** `local`, `stdio`, `http`, `sse`; `unknown` for a server the action did not configure. */
  type: string
  /**
   * What the CLI last said: `connected`, `failed`, `pending`, ...; `not-reported` when it said
   * nothing (the session ended first, or the CLI does not report servers).
   */
  status: string
  /** Why it failed, as the CLI said (redacted, clipped). */
  error?: string
  /** How many tools the CLI loaded from it. */
  tools?: number
  /** Calls the agent made to its tools, and how many of them the policy denied. */
  calls: number
  denied: number
}

/** The custom agent the session ran as (the `agent` input). */
export interface AgentRecord {
  name: string
  /** The agent file, relative to the working directory. */
  file: string
  /** The CLI confirmed it selected the agent (`subagent.selected`). */
  selected: boolean
}

export interface SubagentRecord {
  toolCallId: string
  /** The agent's name (`explore`, `general-purpose`, a custom agent). */
  name: string
  description?: string
  outcome: 'running' | 'completed' | 'failed'
  error?: string
  /** The tool calls the subagent made (its children in `tools`, also those not kept there). */
  calls?: number
}

/**
 * The agent's task_complete, and what the CLI made of it: `accepted`, or `rejected` (the CLI
 * refused or withdrew it: in plan mode, or sending the agent back to work; the run is then not
 * complete whatever the agent said).
 */
export interface CompletionRecord {
  state: 'accepted' | 'rejected'
  /** Why the CLI refused it. */
  reason?: string
}

/** An error in the policy file, where it is (the run did not start). */
export interface PolicyIssueRecord {
  file: string
  line: number
  column: number
  message: string
  fix: string
}

/** A path changed while the agent worked that the write rules forbid, and what became of it. */
export interface ViolationRecord {
  /** Relative to the workspace. */
  path: string
  change: 'created' | 'changed' | 'deleted'
  /** The rule that forbids it (`default`: no rule allows it; `git-internals`). */
  rule: string
  reason?: string
  /** Put back as it was before the agent started (removed, when it was created). */
  reverted: boolean
  /** Why it could not be put back. */
  note?: string
  /** The agent's shell command that names the path, when one does. */
  command?: string
}

/**
 * A change the workspace audit put back that the policy allows, so no violation: the current
 * branch moved by the agent's own commit under a policy that allows `git commit` (refs are put
 * back always: the patch is made from trees, and later steps must not see the agent's commits).
 */
export interface AuditNoteRecord {
  /** Relative to the workspace (`.git/refs/heads/main`, `.git/HEAD`). */
  path: string
  change: 'created' | 'changed' | 'deleted'
  /** What it was and what became of it. */
  reason: string
  /** Put back as it was before the agent started. */
  reverted: boolean
}

/**
 * The workspace audit: after the agent's work (and after each repair), every path created,
 * changed or deleted since it started, decided by the write rules.
 */
export interface AuditRecord {
  /** How many times the audit ran (after the agent's work, and after each repair). */
  checks: number
  /** Paths created, changed or deleted while the agent worked. */
  changed: number
  violations: ViolationRecord[]
  /** Changes it put back that the policy allows (the agent's commit); absent when none. */
  notes?: AuditNoteRecord[]
  /** False when the workspace had more entries than the audit walks. */
  complete: boolean
  /** Paths the OS sandbox kept read-only (protected paths that existed). */
  readOnly?: string[]
}

export interface PermissionRecord {
  requestId: string
  toolCallId: string | null
  kind: string
  subject: string
  /** The final answer (an ask ends as allow or deny: see `approval`). */
  decision: 'allow' | 'deny'
  rule: string
  reason?: string
  /** When the deciding rule was an ask rule: who was asked, who answered, when. */
  approval?: ApprovalRecord
  /** The CLI's permission request as received, secrets redacted. */
  request: PermissionRequest
}

/**
 * A request the policy routed to a person (`decision: ask`): `approved` / `denied` by a user
 * with write access, `timeout` (no valid answer in time: denied), `unavailable` (nowhere to ask,
 * or the question could not be posted: denied).
 */
export interface ApprovalRecord {
  /** The short id the question names (`/approve <id>`). */
  id: string
  verdict: 'approved' | 'denied' | 'timeout' | 'unavailable'
  askedAt: string
  answeredAt: string
  /** The login that answered. */
  by?: string
  /** The answer's reason, or why no one could be asked. */
  reason?: string
  /** The question's comment. */
  url?: string
}

/**
 * How a setup or verify command ran: `sandboxed` behind the OS sandbox's wall (the filesystem the
 * agent's shell commands see, its own PID namespace); `unconfined` as the workflow's own process,
 * because the input `unconfined-commands` names it; `no-sandbox` without a wall, because the OS
 * sandbox is off or unavailable (then the policy's sandbox record says why).
 */
export type CommandConfinement = 'sandboxed' | 'unconfined' | 'no-sandbox'

export interface CommandRecord {
  phase: 'setup' | 'verify'
  /** How it ran (absent in reports of older versions). */
  confinement?: CommandConfinement
  /**
   * Behind the wall: `none` (no network) when the policy's url rules allow no host; `proxy` (only
   * the hosts they allow, through the action's proxy) otherwise. `shared` (the runner's whole
   * network) in reports of earlier versions.
   */
  network?: 'none' | 'proxy' | 'shared'
  /** Behind the proxy: what it refused the command (at most MAX_REFUSALS targets, in order). */
  refused?: RefusedConnectionRecord[]
  /** How many more targets it refused than `refused` lists. */
  refusedMore?: number
  /** For verify commands after a repair: which repair (1, 2, ...); absent for the first run. */
  attempt?: number
  command: string
  exitCode: number | null
  timedOut: boolean
  durationMs: number
  outputTail: string
}

/** A host and port the proxy refused a setup or verify command. */
export interface RefusedConnectionRecord {
  /** `host:port`, redacted. */
  target: string
  /** Why: the url rule that denies it, no rule allowing it, or the local address it resolves to. */
  reason: string
  attempts: number
}

/**
 * A process a command started that was still running when its step ended, killed by the action
 * (wall/process-sweep.ts): nothing the agent's or the workflow's commands start outlives them.
 */
export interface KilledProcessRecord {
  pid: number
  /** Its command line, redacted and clipped. */
  command: string
  /** Which step started it: the agent's shell commands (or the CLI's own), a setup or a verify command. */
  step: 'agent' | 'setup' | 'verify'
  /** When it was found: right after its setup or verify command, or once the session had ended. */
  when: 'after-command' | 'after-session'
  /**
   * Found inside the command's OS sandbox (its own PID namespace, which ended with it): `pid` is
   * as the sandbox numbered it.
   */
  inWall?: boolean
}

export interface ModelUsage {
  requests: number
  inputTokens: number
  outputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
}

/** The run's checkpoint file (checkpoint/format.ts). */
export interface CheckpointRecord {
  path: string
  sha256: string
  bytes: number
  /** What was left out, with why (empty when nothing was). */
  cut: string[]
}

/** One run of a chain of runs that continue each other. */
export interface ChainLinkRecord {
  runId: string
  status: string
  /** The limit that stopped it: `` `max-ai-credits` 300 ``. */
  stoppedAt?: string
  reason?: string
  aiCredits?: number
  tokens?: number
}

/** What the run cost in AI credits, as the Copilot CLI reported it. */
export interface AiCreditsRecord {
  /** AI credits used, in nano-AIU (1 AI credit = 1e9 nano-AIU, see credits.ts); 0 when none reported. */
  nanoAiu: number
  /**
   * The CLI's `aiCreditsStatus`: `complete`, `partial` (a subtotal: some calls reported no
   * amount), `unavailable` (no call did: a 0 is no zero-cost claim); `not-reported` when the CLI
   * said nothing of credits (CLIs before 1.0.102, or no model call).
   */
  status: 'complete' | 'partial' | 'unavailable' | 'not-reported'
  /** The model is the user's own provider (BYOK): the provider bills the run, not Copilot. */
  byok: boolean
}

export interface Metrics {
  /** Absent in reports written before AI credits were reported. */
  aiCredits?: AiCreditsRecord
  premiumRequests: number
  apiDurationMs: number
  linesAdded: number
  linesRemoved: number
  filesModified: string[]
  models: Record<string, ModelUsage>
}

export interface TodoRecord {
  id: string
  title: string
  status: string
}

/**
 * Whether the agent's shell commands ran in the OS sandbox: `enforced` (with the backend that
 * engaged, e.g. `bubblewrap`), `unavailable` (the policy allowed running without it, or it
 * failed at run time: `reason` says why) or `off` (the policy turned it off).
 */
export interface SandboxRecord {
  state: 'enforced' | 'unavailable' | 'off'
  backend?: string
  reason?: string
  /**
   * What the action set up on the runner before the session, through its passwordless sudo (on
   * GitHub-hosted Linux runners only): `bubblewrap`, `slirp4netns`, `iptables`, `apparmor profile`.
   */
  provisioned?: string[]
  /** How long that setup took, in seconds. */
  setupSeconds?: number
  /**
   * The policy's url rules allow `hosts` (`*`: any), but the sandbox's network stack is missing:
   * the sandbox ran without network, so shell commands could not reach them. `reason` says what
   * is missing and what to install.
   */
  networkOff?: { hosts: string[]; reason: string }
  /**
   * The Copilot CLI process itself ran behind the sandbox's outer wall (its own file tools and
   * MCP servers included): it saw the workspace, its private home and state, system directories,
   * and nothing else of HOME, the work root, RUNNER_TEMP, the runner's or the action's files.
   */
  cliConfined?: boolean
}

/**
 * The checkout's credentials in the workspace's git config (`http.*.extraheader`, the include of
 * checkout v6+'s credentials file, a token in a remote URL): taken out before the session, put
 * back after it. `removed` names each `<file>: <key>`, never a value.
 */
export interface CredentialsRecord {
  removed: string[]
  /** Put back after the session (false: not yet, or it failed and the post step tries again). */
  restored: boolean
  /** Why they could not be taken out or put back. */
  error?: string
}

/**
 * Instruction files (AGENTS.md, .github/copilot-instructions.md, ...) the CLI would have read from
 * an untrusted tree although they lead out of the workspace or are not regular files: moved aside
 * for the session (session/instruction-files.ts), put back after it.
 */
export interface InstructionFilesRecord {
  /** Each file, relative to the workspace, and why it was kept from the CLI. */
  kept: Array<{ path: string; reason: string }>
  /** Put back after the session (false: not yet, or it failed and the post step tries again). */
  restored: boolean
  /** Why they could not be put back. */
  error?: string
}

/**
 * The job's variables kept from the Copilot CLI and the agent's commands (src/wall/environment.ts):
 * by name only, never a value.
 */
export interface EnvironmentRecord {
  /** Each variable the run did not pass and why (`secret`, `credential`, `writable-root`, `reserved`). */
  dropped: Array<{ name: string; reason: string }>
  /** How many of the job's variables neither the fixed set nor `env-passthrough` names. */
  notListed: number
}

/**
 * The agent's changes since the commit the run started from, as git computes them: session
 * files (plan.md, ...), the policy's own file and paths the audit put back never count.
 */
export interface ChangesRecord {
  /** The commit the run started from (HEAD before the session). */
  base: string
  files: ChangedFileRecord[]
  /** The binary git patch of these changes (absolute path, in RUNNER_TEMP); absent when none was written. */
  patchPath?: string
  /** Why the changes or the patch could not be computed (then `files` may be empty). */
  error?: string
}

export interface ChangedFileRecord {
  /** Relative to the workspace (the new path, for a rename). */
  path: string
  change: 'added' | 'modified' | 'deleted' | 'renamed'
  /** The old path, for a rename. */
  from?: string
  added: number
  removed: number
  /** Git sees binary content: `added` / `removed` are 0. */
  binary?: boolean
}

/**
 * The GitHub account's premium request quota after the run (`account.getQuota`), when the run
 * used the GitHub credential and the CLI gave it.
 */
export interface QuotaRecord {
  /** Premium requests left this period; absent when the entitlement is unlimited. */
  premiumRemaining?: number
  /** Premium requests included this period; absent when unlimited. */
  premiumEntitlement?: number
  premiumUsed: number
  /** Percentage of the entitlement left, as the CLI said. */
  remainingPercentage: number
  unlimited: boolean
  /** Premium requests beyond the entitlement this period. */
  overage: number
  /** When the quota resets (ISO 8601), when the CLI said. */
  resetDate?: string
}

/** A write-back the agent proposed through a safe-output tool (applied later by `mode: publish`). */
export type SafeOutputProposal =
  | { kind: 'pull-request'; title: string; body: string; draft: boolean }
  | { kind: 'comment'; body: string }
  | { kind: 'labels'; labels: string[] }
  | { kind: 'issue'; title: string; body: string; labels: string[] }

/** The safe-output tools of a run: which were offered, what the agent proposed, what was refused. */
export interface SafeOutputsRecord {
  /** The `safe-outputs` input: the kinds of proposal offered as tools. */
  offered: Array<SafeOutputProposal['kind']>
  proposals: SafeOutputProposal[]
  /** Calls refused as invalid (the agent was told why). */
  refused: Array<{ tool: string; reason: string }>
  /** The proposals file (output `safe-outputs-path`). */
  path?: string
}

/** Where the agent worked (see `Report.checkout`). */
export interface CheckoutRecord {
  /** `owner/name`. */
  repository: string
  /** `origin`: the checkout's remote; `workflow`: GITHUB_REPOSITORY (no usable remote). */
  from: 'origin' | 'workflow'
}

/** The workflow run that made a report, for a roll-up over many runs to link to. */
export interface RunRecord {
  /** The run's page (this attempt's, when the attempt is known). */
  url: string
  /** GITHUB_RUN_ID. */
  id: string
  /** GITHUB_RUN_ATTEMPT. */
  attempt?: number
  /** The job's id in the workflow (GITHUB_JOB), e.g. `agent`. */
  job?: string
}

/**
 * The report format's version. Fields are only ever added within a version (a reader ignores
 * the ones it does not know); a field that changes its meaning or goes away makes a new one, and
 * a reader refuses versions newer than it knows (reporting/report-file.ts).
 */
export const REPORT_VERSION = 1

export interface Report {
  version: typeof REPORT_VERSION
  status: RunStatus
  sessionId: string | null
  summary: string | null
  cliVersion: string | null
  model: string | null
  startedAt: string
  endedAt: string | null
  durationMs: number | null
  error?: { message: string; type?: string }
  policy: {
    source: string
    builtIn: boolean
    /** The policy's errors, when it could not be used (then no session ran). */
    issues?: PolicyIssueRecord[]
  }
  /** The agent's task_complete, when it called it. */
  completion?: CompletionRecord
  /** The OS sandbox around the agent's shell commands (absent in reports of older versions). */
  sandbox?: SandboxRecord
  /** The workspace audit after the agent's work (absent when no audit ran). */
  audit?: AuditRecord
  /** Processes still running after their step, killed (absent: none). */
  killedProcesses?: KilledProcessRecord[]
  /** The checkout's credentials, out of the git config during the session (absent: none found). */
  credentials?: CredentialsRecord
  /** Instruction files kept from the CLI for the session (absent: none). */
  instructionFiles?: InstructionFilesRecord
  /** The job's variables not passed to the agent, by name (absent in reports of older versions). */
  environment?: EnvironmentRecord
  plan: { content: string | null; todos: TodoRecord[] }
  /** The agent's changes since the starting commit, from git (absent: not a git checkout, or no session ran). */
  changes?: ChangesRecord
  /**
   * The run's checkpoint (issue 31), written whenever a session existed: where, its SHA-256 (also
   * in the sticky comment's hidden line), its size, and what was left out to stay under the caps.
   */
  checkpoint?: CheckpointRecord
  /**
   * The runs this one continued (resumed from a checkpoint), oldest first; the last is the one it
   * resumed. Absent for a run that started fresh.
   */
  continuedFrom?: ChainLinkRecord[]
  /** Why a resume was asked for (`resume: auto`) but not done: the run started fresh. */
  resumeRefused?: string
  /** The safe-output tools and the agent's proposals (absent: the input `safe-outputs` is empty). */
  safeOutputs?: SafeOutputsRecord
  tools: ToolCallRecord[]
  permissions: PermissionRecord[]
  commands: CommandRecord[]
  metrics: Metrics
  /** The last things the agent did, for failure details (assistant text, tool starts). */
  lastActivity: string[]
  /** Why autopilot stopped, as the CLI said (`task_complete`, `cap_reached`, `error`). */
  stopReason?: string
  /** The agent's working directory, to show modified files relative to it. */
  workingDirectory?: string
  /** The repository's web address (`https://github.com/owner/name`), to link files in it; absent outside Actions. */
  repository?: string
  /** The commit the workspace was checked out at, to link files as the run saw them. */
  commit?: string
  /**
   * The repository the agent worked on, as `owner/name`: the checkout's `origin` remote when it
   * names a repository on the run's GitHub server (in a run over many repositories, not the
   * workflow's own), else the workflow's repository. Absent outside Actions with no such remote.
   */
  checkout?: CheckoutRecord
  /** The workflow run that made the report (absent outside Actions). */
  run?: RunRecord
  /** Per tool name, over every call. `tools` may keep only a bounded subset of the calls. */
  toolStats?: Record<string, ToolStats>
  /** How many tool call records were dropped from `tools` to bound memory (failures are kept). */
  toolsOmitted?: number
  /**
   * Verify and repair: each time failing verify commands went back to the agent (verify-retries),
   * with the commands that had failed.
   */
  repairs?: { attempt: number; failed: string[] }[]
  /** Subagents the agent started, in order. */
  subagents?: SubagentRecord[]
  /** MCP servers of the session, in the order they were configured or reported. */
  mcpServers?: McpServerRecord[]
  /** The custom agent the session ran as. */
  agent?: AgentRecord
  /**
   * Calls the CLI makes for itself (`report_intent`, ...): not the agent's work, so not in
   * `tools` or `toolStats`; only counted here.
   */
  internalCalls?: number
  /** Allowed / denied counts per permission kind, over every decision. */
  permissionCounts?: Record<string, { allow: number; deny: number }>
  /** How many permission records were dropped from `permissions` (denials are kept first). */
  permissionsOmitted?: number
  /** The account's premium quota after the run (GitHub credential only, when the CLI gave it). */
  quota?: QuotaRecord
}
