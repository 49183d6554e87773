/**
 * What the run's state is folded from: the `RunInput`s, and how waiting ended (`Ending`).
 * Types only: the slices and the driver share them without importing each other.
 */
import type {
  ApprovalRecord,
  AuditRecord,
  CommandRecord,
  CredentialsRecord,
  EnvironmentRecord,
  InstructionFilesRecord,
  KilledProcessRecord,
  PolicyIssueRecord,
  QuotaRecord,
  SandboxRecord
} from '../../reporting/types.js'
import type { Decision } from '../../policy/index.js'
import type { PermissionRequest, SessionEvent, Todo, UsageMetrics } from '../../cli/protocol.js'
/** Why waiting for the agent ended, as the driver saw it. */
export type Ending =
  | { kind: 'idle' }
  | { kind: 'session-error' }
  | { kind: 'sandbox-failed' }
  | { kind: 'timeout'; limitMs: number }
  /**
   * The run's budget ran out: `max-tokens` (tokens, the default) or `max-ai-credits` (AI credits).
   */
  | { kind: 'budget'; used: number; limit: number; input?: 'max-tokens' | 'max-ai-credits' }
  | { kind: 'hang'; quietMs: number }
  | { kind: 'cancelled'; during: 'setup' | 'agent' | 'verify' }
  | { kind: 'cli-exit'; message: string }
  | { kind: 'setup-failed' }
  /** The run could not go on: bad configuration (`configuration`) or a bug or outage. */
  | { kind: 'crashed'; message: string; type: 'configuration' | 'error' }

/** Everything a run observes, in the order it observes it. */
export type RunInput =
  | { type: 'event'; event: SessionEvent; receivedAt?: number }
  | { type: 'session-created'; sessionId: string }
  | { type: 'cli'; version: string }
  /** What the session is created with: the MCP servers configured, the custom agent. */
  | {
      type: 'session-options'
      mcpServers: ReadonlyArray<{ name: string; type: string }>
      agent?: { name: string; file: string }
    }
  | {
      type: 'policy'
      source: string
      builtIn: boolean
      /** Errors of a policy that could not be used. */
      issues?: readonly PolicyIssueRecord[]
    }
  /** The sandbox as planned; `required`: a failure to engage stops the run. */
  | { type: 'sandbox'; record: SandboxRecord; required: boolean }
  /** Paths the OS sandbox keeps read-only (the protected paths that exist). */
  | { type: 'read-only'; paths: readonly string[] }
  /** The workspace audit after the agent's work (one per agent turn: repairs add theirs). */
  | { type: 'audit'; result: Omit<AuditRecord, 'readOnly' | 'checks'> }
  /** The checkout's credentials taken out of the git config, and whether they are back. */
  | { type: 'credentials'; record: CredentialsRecord }
  /** Instruction files kept from the CLI for the session, and whether they are back. */
  | { type: 'instruction-files'; record: InstructionFilesRecord }
  /** The job's variables kept from the CLI's environment (names only). */
  | { type: 'environment'; record: EnvironmentRecord }
  /** Processes still running after their step, killed by the sweep. */
  | { type: 'killed'; processes: readonly KilledProcessRecord[] }
  | {
      type: 'decision'
      requestId: string
      request: PermissionRequest
      /** The final decision (an ask is recorded once a person answered, or could not). */
      decision: FinalDecision
      approval?: ApprovalRecord
    }
  /** A request the policy routed to a person: the question is out, the answer pending. */
  | { type: 'ask'; requestId: string; id: string; kind: string; subject: string; rule: string }
  /** What the run is doing (for live progress). */
  | { type: 'phase'; phase: Phase }
  /** Failing verify commands went back to the agent (verify-retries): a new attempt begins. */
  | { type: 'repair'; attempt: number }
  | { type: 'prompt-sent' }
  | { type: 'command'; record: CommandRecord }
  | { type: 'plan'; content: string | null; path?: string | null }
  | { type: 'todos'; todos: readonly Todo[] }
  | { type: 'metrics'; metrics: UsageMetrics }
  /** The account's premium quota after the run (`account.getQuota`, GitHub credential only). */
  | { type: 'quota'; quota: QuotaRecord }
  | { type: 'ended'; ending: Ending }

/** A decision as the agent got it: an ask has become an allow or a deny. */
export type FinalDecision = Decision & { decision: 'allow' | 'deny' }

/** The run's phases, as live progress shows them. */
export type Phase = 'starting' | 'setup' | 'agent' | 'verify' | 'finishing'
