/**
 * The policy's layout rules: no import cycle inside src/policy (type imports count: the first
 * value import would make one real), no source file past 1,500 lines, and programs/ reads words
 * only (it imports neither the analyzer nor the engine).
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve('src/policy')

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(path.join(dir, e.name))
      : e.name.endsWith('.ts')
        ? [path.join(dir, e.name)]
        : []
  )
}

const files = sources(root)
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/g

/** Each file's imports inside src/policy. */
const graph = new Map<string, string[]>(
  files.map((file) => {
    const text = readFileSync(file, 'utf8')
    const deps = [...text.matchAll(IMPORT)]
      .map((m) => path.resolve(path.dirname(file), (m[1] as string).replace(/\.js$/, '.ts')))
      .filter((d) => d.startsWith(root + path.sep))
    return [file, deps]
  })
)

/** The first import cycle found, as a list of files, or undefined. */
function findCycle(): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string): string[] | undefined => {
    if (state.get(file) === 'done') return undefined
    if (state.get(file) === 'open') return [...stack.slice(stack.indexOf(file)), file]
    state.set(file, 'open')
    stack.push(file)
    for (const dep of graph.get(file) ?? []) {
      const cycle = visit(dep)
      if (cycle !== undefined) return cycle
    }
    stack.pop()
    state.set(file, 'done')
    return undefined
  }
  for (const file of files) {
    const cycle = visit(file)
    if (cycle !== undefined) return cycle
  }
  return undefined
}

describe('src/policy layout', () => {
  it('reads every source file and its imports', () => {
    expect(files.length).toBeGreaterThan(30)
    expect(graph.get(path.join(root, 'engine.ts'))?.length).toBeGreaterThan(5)
  })

  it('has no import cycle', () => {
    expect(findCycle()?.map((f) => path.relative(root, f))).toBeUndefined()
  })

  it('finds a cycle when there is one', () => {
    const a = path.join(root, 'shell-word.ts')
    const before = graph.get(a)
    graph.set(a, [path.join(root, 'engine.ts')])
    try {
      expect(findCycle()).toBeDefined()
    } finally {
      graph.set(a, before ?? [])
    }
  })

  it('has no file past 1,500 lines', () => {
    const long = files
      .map((f) => [path.relative(root, f), readFileSync(f, 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 1500)
    expect(long).toEqual([])
  })

  it('keeps programs/ below the analyzer and the engine', () => {
    const programs = path.join(root, 'programs') + path.sep
    const upward = [...graph]
      .filter(([file]) => file.startsWith(programs))
      .flatMap(([file, deps]) =>
        deps.map((d) => `${path.relative(root, file)} → ${path.relative(root, d)}`)
      )
      .filter((edge) => !/→ (?:programs\/|shell-word\.ts$)/.test(edge))
    expect(upward).toEqual([])
  })
})
