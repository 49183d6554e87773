/**
 * The policy file's schema (version 1). Strict: unknown keys are errors.
 * `policy/copilot-policy.schema.json` mirrors it for editors; a unit test keeps them in sync.
 */
import { z } from 'zod'
import type { MatcherKey } from './types.js'

export const MATCHER_KEYS = [
  'shell',
  'write',
  'read',
  'url',
  'mcp',
  'memory',
  'tool'
] as const satisfies readonly MatcherKey[]

/** Rule ids the engine uses itself; a policy rule cannot take them. */
export const BUILT_IN_IDS = [
  'default',
  'unparsable',
  'dynamic-command',
  'dynamic-path',
  'too-complex',
  'unknown-kind',
  'outside-workspace',
  'invalid-request',
  'null-device',
  'workspace-read',
  'evaluates-code',
  'protected-variable',
  'network-redirect',
  'sensitive-path',
  'runner-files',
  'runs-code',
  'network',
  'dynamic-argument',
  'writes-unknown',
  'reads-unknown',
  'reads-secret',
  'system-read',
  'untrusted-repository',
  'hard-link',
  'links-then-writes',
  'policy-file',
  // not the engine's: the OS sandbox's denials and the workspace audit's git check
  'sandbox',
  'git-internals',
  'audit-incomplete'
] as const

export const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

const Patterns = z.array(z.string().trim().min(1)).min(1)

/** A rule's decision: `ask` routes the request to a person (see policy/README.md). */
export const RULE_DECISIONS = ['allow', 'deny', 'ask'] as const
/** The policy's `default`: never `ask`, or every request no rule matches would page a person. */
export const DEFAULT_DECISIONS = ['allow', 'deny'] as const

export const RuleSchema = z.strictObject({
  id: z.string().regex(RULE_ID).optional(),
  decision: z.enum(RULE_DECISIONS),
  reason: z.string().trim().min(1).optional(),
  shell: Patterns.optional(),
  write: Patterns.optional(),
  read: Patterns.optional(),
  url: Patterns.optional(),
  mcp: Patterns.optional(),
  memory: z.literal(true).optional(),
  tool: Patterns.optional(),
  /** With `mcp`: match only tools the MCP server marks read-only (true) or not (false). */
  readOnly: z.boolean().optional()
})

/** Request keys of a policy test: the same names as the rule matchers. */
export const TEST_REQUEST_KEYS = MATCHER_KEYS

const Subject = z.string().min(1)

export const PolicyTestSchema = z.strictObject({
  shell: Subject.optional(),
  write: Subject.optional(),
  read: Subject.optional(),
  url: Subject.optional(),
  mcp: Subject.optional(),
  memory: z.literal(true).optional(),
  tool: Subject.optional(),
  /** For `mcp` tests: the request's readOnly flag. */
  readOnly: z.boolean().optional(),
  expect: z.enum(RULE_DECISIONS),
  /** The rule expected to decide (its id, `default`, or a built-in id). */
  rule: z.string().min(1).optional()
})

export const PRESET_NAMES = ['read-only', 'ci-fix', 'maintenance'] as const
export type PresetName = (typeof PRESET_NAMES)[number]

/** How the agent's shell commands run: in the CLI's OS sandbox (see src/policy/sandbox.ts). */
export const SANDBOX_MODES = ['auto', 'required', 'off'] as const
export type SandboxMode = (typeof SANDBOX_MODES)[number]

export const SandboxSchema = z.strictObject({
  mode: z.enum(SANDBOX_MODES)
})

export const PolicyFileSchema = z.strictObject({
  version: z.literal(1),
  extends: z.enum(PRESET_NAMES).optional(),
  default: z.enum(DEFAULT_DECISIONS).optional(),
  sandbox: SandboxSchema.optional(),
  rules: z.array(RuleSchema).optional(),
  tests: z.array(PolicyTestSchema).optional()
})
export type PolicyFileInput = z.infer<typeof PolicyFileSchema>

/** The keys the schema accepts, for messages and the JSON Schema sync test. */
export const POLICY_KEYS = Object.keys(PolicyFileSchema.shape)
export const RULE_KEYS = Object.keys(RuleSchema.shape)
export const TEST_KEYS = Object.keys(PolicyTestSchema.shape)
export const SANDBOX_KEYS = Object.keys(SandboxSchema.shape)

/** What each key may hold, for error messages. */
export const KEY_HELP: Record<string, string> = {
  version: 'version: 1',
  extends: `extends: read-only (one of ${PRESET_NAMES.join(', ')})`,
  tests: 'tests: [ { shell: "git push origin main", expect: deny } ]',
  expect: 'expect: allow (or deny, or ask)',
  readOnly: 'readOnly: true (only with mcp)',
  default: 'default: deny (or allow)',
  sandbox: 'sandbox: { mode: auto } (auto, required or off)',
  mode: 'mode: auto (or required, or off)',
  rules: 'rules: [ { decision: allow, shell: ["npm test"] } ]',
  id: 'id: my-rule (letters, digits, ".", "_", "-"; starting with a letter or digit)',
  decision: 'decision: allow (or deny, or ask: a maintainer approves each request)',
  reason: 'reason: a sentence the agent sees when the rule denies (the maintainer, when it asks)',
  shell: 'shell: ["npm test*", "git status"]',
  write: 'write: ["src/**", "*.md"]',
  read: 'read: ["**"]',
  url: 'url: ["docs.github.com", "https://*.npmjs.com/**"]',
  mcp: 'mcp: ["github/get_*"]',
  memory: 'memory: true',
  tool: 'tool: ["my_tool"]',
  rule: 'rule: the-rule-id'
}
