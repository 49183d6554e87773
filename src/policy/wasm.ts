/**
 * Loads tree-sitter (WASM) and the bash grammar once per process.
 *
 * Two `.wasm` files must be found at run time: `web-tree-sitter.wasm` (the runtime) and
 * `tree-sitter-bash.wasm` (the grammar). The build copies both next to the ncc bundle in `dist/`;
 * in development and tests they are resolved from node_modules.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { Language, Parser } from 'web-tree-sitter'

export const RUNTIME_WASM = 'web-tree-sitter.wasm'
export const BASH_WASM = 'tree-sitter-bash.wasm'

const PACKAGE_PATHS: Record<string, string> = {
  [RUNTIME_WASM]: 'web-tree-sitter/web-tree-sitter.wasm',
  [BASH_WASM]: 'tree-sitter-bash/tree-sitter-bash.wasm'
}

/**
 * Where a `.wasm` file is: next to the running module (the ncc bundle in `dist/`), then in a
 * `dist/` directory beside or above the module, then in node_modules. Throws when none exists.
 */
export function locateWasm(name: string, moduleUrl: string = import.meta.url): string {
  const tried: string[] = []
  let moduleDir: string | undefined
  try {
    // `name` is a variable on purpose: bundlers must not try to inline or relocate it.
    const beside = fileURLToPath(new URL(`./${name}`, moduleUrl))
    moduleDir = path.dirname(beside)
    tried.push(beside)
  } catch {
    // not a file: URL (e.g. a data: URL in some test runners)
  }
  if (moduleDir !== undefined) {
    let dir = moduleDir
    for (let i = 0; i < 4; i++) {
      tried.push(path.join(dir, 'dist', name))
      const parent = path.dirname(dir)
      if (parent === dir) break
      dir = parent
    }
  }
  for (const candidate of tried) if (existsSync(candidate)) return candidate
  const packagePath = PACKAGE_PATHS[name]
  if (packagePath !== undefined) {
    try {
      return createRequire(moduleUrl).resolve(packagePath)
    } catch {
      tried.push(`node_modules/${packagePath}`)
    }
  }
  throw new Error(
    `cannot find ${name} (looked in ${tried.join(', ')}); copy it next to the bundle in dist/`
  )
}

let bashParser: Promise<Parser> | undefined
let readyParser: Parser | undefined

/** Initializes tree-sitter and the bash grammar (once per process; later calls share it). */
export function initBashParser(): Promise<Parser> {
  if (bashParser === undefined) {
    bashParser = (async () => {
      await Parser.init({
        locateFile: (file: string) => (file.endsWith('.wasm') ? locateWasm(RUNTIME_WASM) : file)
      })
      const language = await Language.load(locateWasm(BASH_WASM))
      const parser = new Parser()
      parser.setLanguage(language)
      readyParser = parser
      return parser
    })()
    // A failed init must not poison the process: let the next caller retry.
    bashParser.catch(() => {
      bashParser = undefined
    })
  }
  return bashParser
}

/** The initialized parser; throws when `initBashParser()` has not completed. */
export function bashParserSync(): Parser {
  if (readyParser === undefined) {
    throw new Error('the bash parser is not initialized: await initBashParser() first')
  }
  return readyParser
}
