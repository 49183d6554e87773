// Bundles the action (and the policy tool) with ncc into dist/, and copies the tree-sitter WASM
// files the shell parser loads at run time (ncc does not follow them by itself).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'
import * as esbuild from 'esbuild'

const require = createRequire(import.meta.url)
const root = path.dirname(path.dirname(new URL(import.meta.url).pathname))
const dist = path.join(root, 'dist')
const ncc = path.join(root, 'node_modules', '@vercel', 'ncc', 'dist', 'ncc', 'cli.js')

// `treeSitter`: the entry bundles web-tree-sitter, whose import of "module" is patched below.
const entries = [
  { src: 'src/index.ts', out: 'index.js', licenses: 'licenses.txt', treeSitter: true },
  {
    src: 'src/policy-cli.ts',
    out: 'cli.js',
    licenses: 'cli-licenses.txt',
    optional: true,
    treeSitter: true
  },
  // The post step (action.yml `runs.post`): restores the checkout credentials; no tree-sitter.
  { src: 'src/post.ts', out: 'post.js', licenses: 'post-licenses.txt', treeSitter: false }
]

fs.rmSync(dist, { recursive: true, force: true })
fs.mkdirSync(dist, { recursive: true })
for (const entry of entries) {
  if (entry.optional && !fs.existsSync(path.join(root, entry.src))) continue
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ncc-'))
  execFileSync(
    process.execPath,
    [
      ncc,
      'build',
      entry.src,
      '-o',
      outDir,
      '--license',
      entry.licenses,
      // minified: half the size, and faster to load (bench/: `npm run bench`)
      '--minify',
      '--quiet',
      '--target',
      'es2022'
    ],
    {
      cwd: root,
      stdio: 'inherit'
    }
  )
  // Besides index.js, ncc writes the chunks of dynamic imports (`<id>.index.js`, loaded by name
  // from the entry: src/index.ts starts the CLI, then imports the rest) and assets.
  const files = fs.readdirSync(outDir)
  const scripts = files.filter((file) => file.endsWith('.js'))
  const codeOf = new Map(
    scripts.map((file) => [file, fs.readFileSync(path.join(outDir, file), 'utf8')])
  )
  if (entry.treeSitter) patchBuiltinImport(entry.src, codeOf)
  for (const file of files) {
    // ncc also emits web-tree-sitter's runtime under a hashed name, for the fallback URL the
    // runtime uses without `locateFile`; src/policy/wasm.ts always passes locateFile and loads
    // the copies made below, so the hashed copy would be 229 kB of dead weight.
    if (/^[0-9a-f]{20}\.wasm$/.test(file)) continue
    const source = path.join(outDir, file)
    let content = codeOf.get(file) ?? fs.readFileSync(source)
    // ncc minifies the entry only; its chunks are minified here, the same way.
    if (file !== 'index.js' && typeof content === 'string') content = await minify(content)
    const target = path.join(dist, file === 'index.js' ? entry.out : file)
    // Two entries must not write different files under one name.
    if (fs.existsSync(target) && !fs.readFileSync(target).equals(Buffer.from(content)))
      throw new Error(`${entry.src}: ncc wrote ${file}, which another entry wrote differently`)
    fs.writeFileSync(target, content)
  }
  fs.rmSync(outDir, { recursive: true, force: true })
}

async function minify(code) {
  const result = await esbuild.transform(code, {
    minify: true,
    format: 'esm',
    target: 'es2022',
    legalComments: 'none' // licenses.txt has them all
  })
  return result.code
}

/**
 * web-tree-sitter does `const { createRequire } = await import("module")`. webpack (inside ncc)
 * turns that into a namespace object of the builtin; because `require('module')` is a function,
 * its properties are not copied and `createRequire` comes out undefined. The bundle is ESM, so
 * the native dynamic import works: put it back. The pattern is matched loosely enough for both
 * plain and minified output (spacing, the `/* import() *\/` comment and the binding's name
 * vary), and the webpack module it loads must be the builtin "module". Fails the build unless
 * it is found exactly once (a new ncc or web-tree-sitter must be looked at, not silently shipped).
 */
function patchBuiltinImport(entry, codeOf) {
  const pattern =
    /const\s*\{\s*createRequire\s*(?::\s*([\w$]+)\s*)?\}\s*=\s*await\s+Promise\.resolve\(\s*(?:\/\*\s*import\(\)\s*\*\/\s*)?\)\.then\(\s*(__nccwpck_require__|__webpack_require__)\.t\.bind\(\s*\2\s*,\s*(\d+)\s*,\s*\d+\s*\)\s*\)\s*;/g
  const found = [...codeOf].flatMap(([file, code]) =>
    [...code.matchAll(pattern)].map((match) => ({ file, code, match }))
  )
  if (found.length !== 1)
    throw new Error(
      `${entry}: expected one bundled import("module") of web-tree-sitter, found ${found.length}`
    )
  const [{ file, code, match }] = found
  const [text, binding, , id] = match
  // The module it loads (defined in the entry, or in the same chunk) must be the builtin.
  const builtin = new RegExp(
    `(?:^|[^\\w$])${id}\\s*:[^}]{0,80}?\\(import\\.meta\\.url\\)\\("module"\\)`
  )
  if (![...codeOf.values()].some((other) => builtin.test(other)))
    throw new Error(
      `${entry}: webpack module ${id} of web-tree-sitter's import is not the builtin "module"`
    )
  const replacement = `const { createRequire${binding ? `: ${binding}` : ''} } = await import("module");`
  codeOf.set(file, code.slice(0, match.index) + replacement + code.slice(match.index + text.length))
}

for (const wasm of [
  'web-tree-sitter/web-tree-sitter.wasm',
  'tree-sitter-bash/tree-sitter-bash.wasm'
]) {
  fs.copyFileSync(require.resolve(wasm), path.join(dist, path.basename(wasm)))
}
fs.writeFileSync(path.join(dist, 'package.json'), JSON.stringify({ type: 'module' }) + '\n')
console.log(`dist/: ${fs.readdirSync(dist).join(', ')}`)
