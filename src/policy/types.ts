/**
 * The policy's public types. A Policy is loaded once (load → validate → compile) and then answers
 * `decide(request)` synchronously for every permission request the agent raises.
 */
import type { PermissionRequest } from '../cli/protocol.js'

/**
 * What the policy answers: `allow`, `deny`, or `ask` — a person (a maintainer of the repository)
 * must approve the request before it is allowed. Precedence: deny > ask > allow.
 */
export type Verdict = 'allow' | 'deny' | 'ask'

/** A policy's `default`: never `ask` (every request no rule matches would page a person). */
export type DefaultVerdict = Exclude<Verdict, 'ask'>

/** The CLI's permission kinds a rule can match, named by the rule's matcher key. */
export type MatcherKey = 'shell' | 'write' | 'read' | 'url' | 'mcp' | 'memory' | 'tool'

/** How one simple command of a shell request was decided (for the report and `explain`). */
export interface SegmentDecision {
  /** The simple command as text, or the redirect target for `write` checks (`> path`). */
  text: string
  decision: Verdict
  /** Rule id, `default`, or a built-in reason id such as `unparsable` / `dynamic-command`. */
  rule: string
  reason?: string
  /** Ids of every rule that matched this segment (deny, ask and allow), in policy order. */
  matched?: string[]
}

export interface Decision {
  decision: Verdict
  /**
   * The deciding rule's id, or `default` when no rule matched. For a shell request allowed (or
   * asked) by several rules: their ids joined by `, `.
   */
  rule: string
  /** The rule's `reason`, or why a built-in check denied. For `ask`: what the person is told. */
  reason?: string
  /** The permission kind as the CLI named it (`shell`, `write`, `custom-tool`, ...). */
  kind: string
  /** What was asked for, one line: the command, the path, the URL, `server/tool`, ... */
  subject: string
  /** Per-segment detail for shell requests. */
  segments?: SegmentDecision[]
  /** For non-shell requests: ids of every rule that matched, in policy order. */
  matched?: string[]
}

export interface Policy {
  /** Where the policy came from: a file path, or `built-in:<name>`. */
  source: string
  /** True when no policy file existed and the built-in default applies. */
  builtIn: boolean
  /** How the agent's shell commands run: `auto` (OS sandbox where available), `required`, `off`. */
  sandboxMode: 'auto' | 'required' | 'off'
  decide(request: PermissionRequest): Decision
}
