/**
 * A small evaluator of GitHub Actions `if:` expressions and of which jobs of a workflow run, for
 * the recipes' tests: enough of GitHub's expression language for conditions such as
 * `always() && needs.fix.result == 'success' && github.event.pull_request.head.repo.full_name ==
 * github.repository`.
 *
 * Supported: literals (`'str'` with `''` escapes, numbers, `true`, `false`, `null`), context
 * lookups (`github.event.x`, `needs.job.outputs['name']`), `!`, `==`, `!=`, `<`, `<=`, `>`, `>=`,
 * `&&`, `||` (returning an operand, as GitHub does), parentheses, and the functions `success()`,
 * `failure()`, `always()`, `cancelled()`, `contains`, `startsWith`, `endsWith`, `format`, `join`,
 * `toJSON`, `fromJSON`. Comparisons follow GitHub's rules: strings compare ignoring case; values of
 * different types are compared as numbers (`null` and `''` are 0). A job's `if:` without a status
 * function gets GitHub's implicit `success() &&`. Anything else is an error naming the expression,
 * so a recipe never passes on something the evaluator does not understand.
 *
 * Job status functions judge every job the job depends on, directly or not (GitHub's rule: a
 * failed `tests` job makes `success()` false two jobs later); a skipped dependency is not a
 * success.
 */

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value }

export type JobResult = 'success' | 'failure' | 'cancelled' | 'skipped'

export interface StatusContext {
  /** The results of every job this one depends on, directly or through others. */
  ancestors: JobResult[]
  /** The workflow run was cancelled. */
  cancelled?: boolean
}

type Token =
  | { t: 'str'; v: string }
  | { t: 'num'; v: number }
  | { t: 'id'; v: string }
  | { t: 'op'; v: string }

function tokenize(src: string): Token[] {
  const out: Token[] = []
  let i = 0
  while (i < src.length) {
    const c = src[i] as string
    if (/\s/.test(c)) {
      i++
    } else if (c === "'") {
      let v = ''
      i++
      for (;;) {
        if (i >= src.length) throw new Error(`unterminated string in: ${src}`)
        if (src[i] === "'") {
          if (src[i + 1] === "'") {
            v += "'"
            i += 2
            continue
          }
          i++
          break
        }
        v += src[i]
        i++
      }
      out.push({ t: 'str', v })
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^-?(?:0x[0-9a-f]+|[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?)/i.exec(src.slice(i))
      if (!m) throw new Error(`bad number in: ${src}`)
      out.push({ t: 'num', v: Number(m[0]) })
      i += m[0].length
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(src.slice(i)) as RegExpExecArray
      out.push({ t: 'id', v: m[0] })
      i += m[0].length
    } else {
      const two = src.slice(i, i + 2)
      if (['==', '!=', '<=', '>=', '&&', '||'].includes(two)) {
        out.push({ t: 'op', v: two })
        i += 2
      } else if ('!<>().,[]*'.includes(c)) {
        out.push({ t: 'op', v: c })
        i++
      } else {
        throw new Error(`unexpected character ${JSON.stringify(c)} in: ${src}`)
      }
    }
  }
  return out
}

type Node =
  | { k: 'lit'; v: Value }
  | { k: 'ctx'; name: string }
  | { k: 'index'; of: Node; key: Node }
  | { k: 'prop'; of: Node; name: string }
  | { k: 'call'; name: string; args: Node[] }
  | { k: 'not'; of: Node }
  | { k: 'bin'; op: string; a: Node; b: Node }

function parse(src: string): Node {
  const tokens = tokenize(src)
  let p = 0
  const peek = (): Token | undefined => tokens[p]
  const isOp = (v: string): boolean => {
    const t = peek()
    return t?.t === 'op' && t.v === v
  }
  const expect = (v: string): void => {
    if (!isOp(v)) throw new Error(`expected ${v} at token ${p} in: ${src}`)
    p++
  }
  const binary = (ops: string[], next: () => Node) => (): Node => {
    let a = next()
    for (;;) {
      const t = peek()
      if (t?.t !== 'op' || !ops.includes(t.v)) return a
      p++
      a = { k: 'bin', op: t.v, a, b: next() }
    }
  }
  const primary = (): Node => {
    const t = tokens[p++]
    if (t === undefined) throw new Error(`unexpected end of: ${src}`)
    let node: Node
    if (t.t === 'str' || t.t === 'num') node = { k: 'lit', v: t.v }
    else if (t.t === 'op' && t.v === '(') {
      node = or()
      expect(')')
    } else if (t.t === 'id') {
      if (t.v === 'true' || t.v === 'false') node = { k: 'lit', v: t.v === 'true' }
      else if (t.v === 'null') node = { k: 'lit', v: null }
      else if (isOp('(')) {
        p++
        const args: Node[] = []
        if (!isOp(')')) {
          args.push(or())
          while (isOp(',')) {
            p++
            args.push(or())
          }
        }
        expect(')')
        node = { k: 'call', name: t.v.toLowerCase(), args }
      } else node = { k: 'ctx', name: t.v }
    } else throw new Error(`unexpected ${t.v} in: ${src}`)
    for (;;) {
      if (isOp('.')) {
        p++
        const name = tokens[p++]
        if (name?.t !== 'id') throw new Error(`expected a property name in: ${src}`)
        node = { k: 'prop', of: node, name: name.v }
      } else if (isOp('[')) {
        p++
        const key = or()
        expect(']')
        node = { k: 'index', of: node, key }
      } else return node
    }
  }
  const unary = (): Node => {
    if (isOp('!')) {
      p++
      return { k: 'not', of: unary() }
    }
    return primary()
  }
  const compare = binary(['<', '<=', '>', '>='], unary)
  const equality = binary(['==', '!='], compare)
  const and = binary(['&&'], equality)
  const or: () => Node = binary(['||'], and)
  const node = or()
  if (p !== tokens.length) throw new Error(`unexpected ${tokens[p]?.v} in: ${src}`)
  return node
}

export function truthy(v: Value): boolean {
  if (v === null || v === false || v === '' || v === 0) return false
  if (typeof v === 'number' && Number.isNaN(v)) return false
  return true
}

function toNumber(v: Value): number {
  if (v === null) return 0
  if (typeof v === 'boolean') return v ? 1 : 0
  if (typeof v === 'number') return v
  if (typeof v === 'string') return v.trim() === '' ? 0 : Number(v)
  return NaN
}

function toText(v: Value): string {
  if (v === null) return ''
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return JSON.stringify(v)
}

function equals(a: Value, b: Value): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase()
  if (typeof a === typeof b && (a === null || typeof a !== 'object')) return a === b
  if (typeof a === 'object' && a !== null) return a === b
  if (typeof b === 'object' && b !== null) return false
  return toNumber(a) === toNumber(b)
}

function lookup(of: Value, key: Value): Value {
  if (of === null || typeof of !== 'object') return null
  if (Array.isArray(of)) {
    if (key === '*') return of
    const n = toNumber(key)
    return Number.isInteger(n) ? (of[n] ?? null) : null
  }
  const k = toText(key).toLowerCase()
  for (const [name, value] of Object.entries(of)) if (name.toLowerCase() === k) return value
  return null
}

const STATUS = new Set(['success', 'failure', 'always', 'cancelled'])

function usesStatus(node: Node): boolean {
  switch (node.k) {
    case 'call':
      return STATUS.has(node.name) || node.args.some(usesStatus)
    case 'not':
    case 'prop':
      return usesStatus(node.of)
    case 'index':
      return usesStatus(node.of) || usesStatus(node.key)
    case 'bin':
      return usesStatus(node.a) || usesStatus(node.b)
    default:
      return false
  }
}

function evaluateNode(node: Node, context: Record<string, Value>, status: StatusContext): Value {
  const ev = (n: Node): Value => evaluateNode(n, context, status)
  switch (node.k) {
    case 'lit':
      return node.v
    case 'ctx':
      if (!(node.name in context)) throw new Error(`unknown context "${node.name}"`)
      return context[node.name] ?? null
    case 'prop':
      return lookup(ev(node.of), node.name)
    case 'index':
      return lookup(ev(node.of), ev(node.key))
    case 'not':
      return !truthy(ev(node.of))
    case 'bin': {
      if (node.op === '&&') {
        const a = ev(node.a)
        return truthy(a) ? ev(node.b) : a
      }
      if (node.op === '||') {
        const a = ev(node.a)
        return truthy(a) ? a : ev(node.b)
      }
      const a = ev(node.a)
      const b = ev(node.b)
      if (node.op === '==') return equals(a, b)
      if (node.op === '!=') return !equals(a, b)
      const [x, y] =
        typeof a === 'string' && typeof b === 'string'
          ? [a.toLowerCase(), b.toLowerCase()]
          : [toNumber(a), toNumber(b)]
      if (node.op === '<') return x < y
      if (node.op === '<=') return x <= y
      if (node.op === '>') return x > y
      return x >= y
    }
    case 'call': {
      const args = node.args.map(ev)
      const arity = (n: number): void => {
        if (args.length !== n) throw new Error(`${node.name}() takes ${n} arguments`)
      }
      switch (node.name) {
        case 'always':
          arity(0)
          return true
        case 'cancelled':
          arity(0)
          return status.cancelled === true
        case 'success':
          arity(0)
          return status.cancelled !== true && status.ancestors.every((r) => r === 'success')
        case 'failure':
          arity(0)
          return status.ancestors.some((r) => r === 'failure')
        case 'contains': {
          arity(2)
          const [hay = null, needle = null] = args
          if (Array.isArray(hay)) return hay.some((item) => equals(item, needle))
          return toText(hay).toLowerCase().includes(toText(needle).toLowerCase())
        }
        case 'startswith':
          arity(2)
          return toText(args[0] ?? null)
            .toLowerCase()
            .startsWith(toText(args[1] ?? null).toLowerCase())
        case 'endswith':
          arity(2)
          return toText(args[0] ?? null)
            .toLowerCase()
            .endsWith(toText(args[1] ?? null).toLowerCase())
        case 'format': {
          const [fmt = null, ...rest] = args
          return toText(fmt).replace(/\{(\d+)\}/g, (_, i: string) =>
            toText(rest[Number(i)] ?? null)
          )
        }
        case 'join': {
          const [list = null, sep = ','] = args
          return Array.isArray(list) ? list.map(toText).join(toText(sep)) : toText(list)
        }
        case 'tojson':
          arity(1)
          return JSON.stringify(args[0] ?? null, null, 2)
        case 'fromjson':
          arity(1)
          return JSON.parse(toText(args[0] ?? null)) as Value
        default:
          throw new Error(`unsupported function ${node.name}()`)
      }
    }
  }
}

/** The expression inside an `if:` (`${{ … }}` around it is optional, as in GitHub). */
function unwrap(condition: string): string {
  const m = /^\s*\$\{\{([\s\S]*)\}\}\s*$/.exec(condition)
  return (m ? (m[1] as string) : condition).trim()
}

/**
 * Evaluates a job's or step's `if:`; `undefined` means no `if:` (`success()`). Without a status
 * function, GitHub evaluates `success() && (<condition>)`.
 */
export function evaluateCondition(
  condition: string | boolean | undefined,
  context: Record<string, Value>,
  status: StatusContext
): boolean {
  const source = condition === undefined ? 'success()' : unwrap(String(condition))
  let node = parse(source)
  if (!usesStatus(node)) node = { k: 'bin', op: '&&', a: parse('success()'), b: node }
  return truthy(evaluateNode(node, context, status))
}

export interface WorkflowJob {
  needs?: string | string[]
  if?: string | boolean
}

export interface JobOutcome {
  result: JobResult
  outputs: Record<string, string>
}

export interface Scenario {
  /** `github.*` (event_name, event, repository, …). */
  github: Record<string, Value>
  /** How each job that runs ends (default: success, no outputs). */
  outcomes?: Record<string, Partial<JobOutcome>>
  cancelled?: boolean
}

/** Which jobs run for the scenario: each job's result, `skipped` when its `if:` is false. */
export function runJobs(
  jobs: Record<string, WorkflowJob>,
  scenario: Scenario
): Record<string, JobResult> {
  const done = new Map<string, JobOutcome>()
  const needsOf = (id: string): string[] => {
    const needs = jobs[id]?.needs
    return needs === undefined ? [] : Array.isArray(needs) ? needs : [needs]
  }
  const ancestors = (id: string, seen = new Set<string>()): string[] => {
    for (const need of needsOf(id)) {
      if (!(need in jobs)) throw new Error(`job ${id} needs an unknown job ${need}`)
      if (seen.has(need)) continue
      seen.add(need)
      ancestors(need, seen)
    }
    return [...seen]
  }
  const visit = (id: string, stack: string[]): JobOutcome => {
    const known = done.get(id)
    if (known) return known
    if (stack.includes(id)) throw new Error(`a cycle of needs: ${[...stack, id].join(' → ')}`)
    for (const need of needsOf(id)) visit(need, [...stack, id])
    const needs: Record<string, Value> = {}
    for (const need of needsOf(id)) {
      const n = done.get(need) as JobOutcome
      needs[need] = { result: n.result, outputs: n.outputs }
    }
    const runs = evaluateCondition(
      jobs[id]?.if,
      { github: scenario.github, needs, inputs: {}, vars: {}, env: {} },
      {
        ancestors: ancestors(id).map((a) => (done.get(a) as JobOutcome).result),
        ...(scenario.cancelled ? { cancelled: true } : {})
      }
    )
    const outcome: JobOutcome = runs
      ? {
          result: scenario.outcomes?.[id]?.result ?? 'success',
          outputs: scenario.outcomes?.[id]?.outputs ?? {}
        }
      : { result: 'skipped', outputs: {} }
    done.set(id, outcome)
    return outcome
  }
  const out: Record<string, JobResult> = {}
  for (const id of Object.keys(jobs)) out[id] = visit(id, []).result
  return out
}
