/**
 * policy/copilot-policy.schema.json must say what the zod schema says: same keys, same enums,
 * same id pattern, and it must accept the policies we ship and reject what the loader rejects.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { parse } from 'yaml'
import { compilePolicy, PolicyError, presetText } from '../../src/policy/index.js'
import {
  DEFAULT_DECISIONS,
  MATCHER_KEYS,
  POLICY_KEYS,
  RULE_DECISIONS,
  PRESET_NAMES,
  RULE_ID,
  RULE_KEYS,
  TEST_KEYS
} from '../../src/policy/schema.js'
import { EXAMPLE_POLICY, tempWorkspace } from './helpers.js'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type Schema = { [key: string]: Json }

const root = new URL('../../', import.meta.url)
const schema = JSON.parse(
  readFileSync(new URL('policy/copilot-policy.schema.json', root), 'utf8')
) as Schema

function obj(value: Json | undefined): Schema {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`not an object: ${JSON.stringify(value)}`)
  }
  return value
}
const definitions = obj(schema.definitions)
const ruleSchema = obj(definitions.rule)
const testSchema = obj(definitions.test)
const keysOf = (s: Schema) => Object.keys(obj(s.properties)).sort()

/** A validator for the JSON Schema keywords the policy schema uses. */
function validate(value: Json, s: Schema, at = '$'): string[] {
  if (typeof s.$ref === 'string') {
    return validate(value, obj(definitions[s.$ref.replace('#/definitions/', '')]), at)
  }
  const errors: string[] = []
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value)
  if (s.type === 'object' && !isObject) return [`${at}: not an object`]
  if (s.type === 'array' && !Array.isArray(value)) return [`${at}: not an array`]
  if (s.type === 'string' && typeof value !== 'string') return [`${at}: not a string`]
  if (s.type === 'boolean' && typeof value !== 'boolean') return [`${at}: not a boolean`]
  if ('const' in s && value !== s.const) errors.push(`${at}: not ${JSON.stringify(s.const)}`)
  if (Array.isArray(s.enum) && !s.enum.includes(value)) errors.push(`${at}: not in enum`)
  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && value.length < s.minLength) errors.push(`${at}: short`)
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern).test(value)) {
      errors.push(`${at}: does not match ${s.pattern}`)
    }
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === 'number' && value.length < s.minItems) errors.push(`${at}: few`)
    if (s.items !== undefined) {
      value.forEach((item, i) => errors.push(...validate(item, obj(s.items), `${at}[${i}]`)))
    }
  }
  if (isObject) {
    const properties = s.properties === undefined ? {} : obj(s.properties)
    for (const key of Array.isArray(s.required) ? s.required : []) {
      if (typeof key === 'string' && !(key in value)) errors.push(`${at}: missing ${key}`)
    }
    for (const [key, item] of Object.entries(value)) {
      const sub = properties[key]
      if (sub === undefined) {
        if (s.additionalProperties === false) errors.push(`${at}: unknown key ${key}`)
      } else {
        errors.push(...validate(item, obj(sub), `${at}.${key}`))
      }
    }
  }
  if (Array.isArray(s.oneOf)) {
    const passing = s.oneOf.filter((alt) => validate(value, obj(alt), at).length === 0).length
    if (passing !== 1) errors.push(`${at}: matches ${passing} of oneOf`)
  }
  return errors
}

/** The policy files a document shows (fenced yaml that starts with `version:`). */
const documented = (doc: string): Array<[string, string]> =>
  [
    ...readFileSync(new URL(doc, root), 'utf8').matchAll(/^```ya?ml\n(version:[\s\S]*?)^```$/gm)
  ].map((m, i): [string, string] => [`${doc} example ${i + 1}`, m[1] as string])

const exampleDirs = readdirSync(new URL('examples/', root), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)

const shipped: Array<[string, string]> = [
  ["the policy tests' example", EXAMPLE_POLICY],
  ...documented('README.md'),
  ...documented('policy/README.md'),
  ...PRESET_NAMES.map((name): [string, string] => [`preset ${name}`, presetText(name)]),
  // every recipe folder ships a policy: a missing one fails here
  ...exampleDirs.map((name): [string, string] => {
    const file = `examples/${name}/copilot-policy.yml`
    return [file, readFileSync(new URL(file, root), 'utf8')]
  })
]

describe('the JSON Schema of the policy file', () => {
  it('has the zod schema keys at the top level, in rules and in tests', () => {
    expect(keysOf(schema)).toEqual([...POLICY_KEYS].sort())
    expect(keysOf(ruleSchema)).toEqual([...RULE_KEYS].sort())
    expect(keysOf(testSchema)).toEqual([...TEST_KEYS].sort())
  })

  it('has the same enums, id pattern and matcher alternatives', () => {
    const top = obj(schema.properties)
    expect(obj(top.extends).enum).toEqual([...PRESET_NAMES])
    expect(obj(top.default).enum).toEqual(['allow', 'deny'])
    expect(obj(top.version).const).toBe(1)
    expect(obj(top.default).enum).toEqual([...DEFAULT_DECISIONS])
    const rule = obj(ruleSchema.properties)
    expect(obj(rule.decision).enum).toEqual(['allow', 'deny', 'ask'])
    expect(obj(rule.decision).enum).toEqual([...RULE_DECISIONS])
    expect(obj(obj(testSchema.properties).expect).enum).toEqual([...RULE_DECISIONS])
    expect(obj(rule.id).pattern).toBe(RULE_ID.source)
    const alternatives = (s: Schema) =>
      (s.oneOf as Json[]).map((alt) => (obj(alt).required as string[]).join())
    expect(alternatives(ruleSchema)).toEqual([...MATCHER_KEYS])
    expect(alternatives(testSchema)).toEqual([...MATCHER_KEYS])
  })

  it('covers the example policies we ship', () => {
    const names = shipped.map(([name]) => name)
    // the first workflow's policy, the pull-request recipe's and the ask-gated recipe's
    expect(names.filter((n) => n.startsWith('README.md example'))).toHaveLength(3)
    // the policy file, and the ask rule example
    expect(names.filter((n) => n.startsWith('policy/README.md example'))).toHaveLength(2)
    expect(exampleDirs).toHaveLength(3)
  })

  it.each(shipped)('accepts %s, which the loader accepts too', async (name, text) => {
    expect(validate(parse(text) as Json, schema)).toEqual([])
    const ws = tempWorkspace()
    try {
      await expect(compilePolicy(text, name, ws.dir)).resolves.toBeDefined()
    } finally {
      ws.cleanup()
    }
  })

  it.each([
    ['an unknown top-level key', 'version: 1\nrulez: []\n'],
    ['an unknown rule key', 'version: 1\nrules:\n  - { decision: allow, shell: [x], why: y }\n'],
    [
      'a rule with two matchers',
      'version: 1\nrules:\n  - { decision: allow, shell: [x], read: [y] }\n'
    ],
    ['a rule without a matcher', 'version: 1\nrules:\n  - { decision: allow }\n'],
    ['a bad decision', 'version: 1\nrules:\n  - { decision: maybe, shell: [x] }\n'],
    ['default: ask', 'version: 1\ndefault: ask\n'],
    ['a test expecting maybe', 'version: 1\ntests:\n  - { shell: ls, expect: maybe }\n'],
    ['a bad id', 'version: 1\nrules:\n  - { id: "-x", decision: allow, shell: [x] }\n'],
    ['an empty pattern list', 'version: 1\nrules:\n  - { decision: allow, shell: [] }\n'],
    ['memory: false', 'version: 1\nrules:\n  - { decision: deny, memory: false }\n'],
    ['a bad preset', 'version: 1\nextends: yolo\n'],
    ['version 2', 'version: 2\n'],
    ['a test without expect', 'version: 1\ntests:\n  - { shell: ls }\n'],
    ['a test with two requests', 'version: 1\ntests:\n  - { shell: ls, url: x, expect: allow }\n']
  ])('rejects %s, as the loader does', async (_name, text) => {
    expect(validate(parse(text) as Json, schema)).not.toEqual([])
    await expect(compilePolicy(text, 'p.yml', '/')).rejects.toBeInstanceOf(PolicyError)
  })
})
