/**
 * The layout of src/ (issue 24): no import cycle (every relative import — value, `import type`,
 * `export … from`, dynamic `import()` — is an edge; a cycle fails with its path printed), no
 * source file past 1,500 lines, and policy/programs/ below the analyzer and the engine (it
 * imports only itself and the leaf shell-word.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

const SRC = path.resolve('src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : []
  })
}

function resolveImport(
  from: string,
  specifier: string,
  known: ReadonlySet<string>
): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  const base = path.resolve(path.dirname(from), specifier)
  const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, path.join(base, 'index.ts')]
  return candidates.find((candidate) => known.has(candidate))
}

/** The import graph of src/, file → files it imports (relative to src/). */
function importGraph(): Map<string, string[]> {
  const files = sourceFiles(SRC)
  const known = new Set(files)
  const graph = new Map<string, string[]>()
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    const targets = info.importedFiles
      .map((ref) => resolveImport(file, ref.fileName, known))
      .filter((target): target is string => target !== undefined)
    graph.set(
      path.relative(SRC, file),
      [...new Set(targets)].map((target) => path.relative(SRC, target))
    )
  }
  return graph
}

/** Strongly connected components with more than one file (or a file importing itself). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0
  const indices = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string): void => {
    indices.set(node, index)
    low.set(node, index)
    index += 1
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, indices.get(next) ?? 0))
      }
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = []
      let member: string | undefined
      do {
        member = stack.pop()
        if (member === undefined) break
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) {
        found.push(component.sort())
      }
    }
  }
  for (const node of [...graph.keys()].sort()) if (!indices.has(node)) visit(node)
  return found
}

/** One concrete loop through a component, for the failure message: a → b → … → a. */
function loopThrough(
  component: readonly string[],
  graph: ReadonlyMap<string, readonly string[]>
): string {
  const members = new Set(component)
  const start = component[0]
  const previous = new Map<string, string>()
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift() as string
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue
      if (next === start) {
        const loop = [node]
        let at = node
        while (at !== start) {
          at = previous.get(at) as string
          loop.unshift(at)
        }
        return [...loop, start].join(' → ')
      }
      if (!previous.has(next)) {
        previous.set(next, node)
        queue.push(next)
      }
    }
  }
  return component.join(' ↔ ')
}

describe('import graph of src/', () => {
  const graph = importGraph()

  it('reads the imports of every source file, type imports included', () => {
    expect(graph.size).toBeGreaterThan(50)
    // main.ts imports settings.ts by value; reporting/types.ts is reached by `import type`
    expect(graph.get('main.ts')).toContain('settings.ts')
    const typeOnlyImporters = [...graph.entries()].filter(([, targets]) =>
      targets.includes(path.join('reporting', 'types.ts'))
    )
    expect(typeOnlyImporters.length).toBeGreaterThan(0)
  })

  it('finds a cycle when there is one (the detector itself)', () => {
    const loop = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']]
    ])
    expect(cycles(loop)).toEqual([['a.ts', 'b.ts', 'c.ts']])
    expect(loopThrough(['a.ts', 'b.ts', 'c.ts'], loop)).toBe('a.ts → b.ts → c.ts → a.ts')
    expect(
      cycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []]
        ])
      )
    ).toEqual([])
  })

  it('has no import cycle', () => {
    expect(cycles(graph).map((component) => loopThrough(component, graph))).toEqual([])
  })

  it('has no source file past 1,500 lines', () => {
    const long = [...graph.keys()]
      .map((file) => [file, readFileSync(path.join(SRC, file), 'utf8').split('\n').length] as const)
      .filter(([, lines]) => lines > 1500)
    expect(long).toEqual([])
  })

  it('keeps policy/programs/ below the analyzer and the engine', () => {
    const programs = path.join('policy', 'programs') + path.sep
    const upward = [...graph]
      .filter(([file]) => file.startsWith(programs))
      .flatMap(([file, targets]) => targets.map((target) => `${file} → ${target}`))
      .filter((edge) => !edge.split(' → ')[1]!.startsWith(programs))
      .filter((edge) => !edge.endsWith(`→ ${path.join('policy', 'shell-word.ts')}`))
    expect(upward).toEqual([])
  })
})
