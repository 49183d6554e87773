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
  'assignment',
  'null-device'
] as const

export const RULE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

const Patterns = z.array(z.string().trim().min(1)).min(1)

export const RuleSchema = z.strictObject({
  id: z.string().regex(RULE_ID).optional(),
  decision: z.enum(['allow', 'deny']),
  reason: z.string().trim().min(1).optional(),
  shell: Patterns.optional(),
  write: Patterns.optional(),
  read: Patterns.optional(),
  url: Patterns.optional(),
  mcp: Patterns.optional(),
  memory: z.literal(true).optional(),
  tool: Patterns.optional()
})
export type RuleInput = z.infer<typeof RuleSchema>

export const PolicyFileSchema = z.strictObject({
  version: z.literal(1),
  default: z.enum(['allow', 'deny']).optional(),
  rules: z.array(RuleSchema).optional()
})
export type PolicyFileInput = z.infer<typeof PolicyFileSchema>

/** The keys the schema accepts, for messages and the JSON Schema sync test. */
export const POLICY_KEYS = Object.keys(PolicyFileSchema.shape)
export const RULE_KEYS = Object.keys(RuleSchema.shape)

/** What each key may hold, for error messages. */
export const KEY_HELP: Record<string, string> = {
  version: 'version: 1',
  default: 'default: deny (or allow)',
  rules: 'rules: [ { decision: allow, shell: ["npm test"] } ]',
  id: 'id: my-rule (letters, digits, ".", "_", "-"; starting with a letter or digit)',
  decision: 'decision: allow (or deny)',
  reason: 'reason: a sentence the agent sees when the rule denies',
  shell: 'shell: ["npm test*", "git status"]',
  write: 'write: ["src/**", "*.md"]',
  read: 'read: ["**"]',
  url: 'url: ["docs.github.com", "https://*.npmjs.com/**"]',
  mcp: 'mcp: ["github/get_*"]',
  memory: 'memory: true',
  tool: 'tool: ["my_tool"]'
}
