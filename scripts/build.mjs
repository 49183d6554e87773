// Bundles the action (and the policy tool) with ncc into dist/, and copies the tree-sitter WASM
// files the shell parser loads at run time (ncc does not follow them by itself).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const root = path.dirname(path.dirname(new URL(import.meta.url).pathname))
const dist = path.join(root, 'dist')
const ncc = path.join(root, 'node_modules', '@vercel', 'ncc', 'dist', 'ncc', 'cli.js')

const entries = [
  { src: 'src/index.ts', out: 'index.js' },
  { src: 'src/policy-cli.ts', out: 'cli.js', optional: true }
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
      'licenses.txt',
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
  for (const file of fs.readdirSync(outDir)) {
    const target = file === 'index.js' ? entry.out : file
    fs.copyFileSync(path.join(outDir, file), path.join(dist, target))
  }
  patchBuiltinImport(path.join(dist, entry.out))
  fs.rmSync(outDir, { recursive: true, force: true })
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
function patchBuiltinImport(file) {
  const code = fs.readFileSync(file, 'utf8')
  // web-tree-sitter's own file name survives minification (it locates its .wasm by it)
  if (!code.includes('web-tree-sitter.wasm')) return
  const pattern =
    /const\s*\{\s*createRequire\s*(?::\s*([\w$]+)\s*)?\}\s*=\s*await\s+Promise\.resolve\(\s*(?:\/\*\s*import\(\)\s*\*\/\s*)?\)\.then\(\s*__nccwpck_require__\.t\.bind\(\s*__nccwpck_require__\s*,\s*(\d+)\s*,\s*\d+\s*\)\s*\)\s*;/g
  const matches = [...code.matchAll(pattern)]
  if (matches.length !== 1)
    throw new Error(
      `${file}: expected one bundled import("module") of web-tree-sitter, found ${matches.length}`
    )
  const [match] = matches
  const [text, binding, id] = match
  const builtin = new RegExp(
    `(?:^|[^\\w$])${id}\\s*:[^}]{0,80}?__WEBPACK_EXTERNAL_createRequire\\(import\\.meta\\.url\\)\\("module"\\)`
  )
  if (!builtin.test(code))
    throw new Error(
      `${file}: webpack module ${id} of web-tree-sitter's import is not the builtin "module"`
    )
  const replacement = `const { createRequire${binding ? `: ${binding}` : ''} } = await import("module");`
  fs.writeFileSync(
    file,
    code.slice(0, match.index) + replacement + code.slice(match.index + text.length)
  )
}

for (const wasm of [
  'web-tree-sitter/web-tree-sitter.wasm',
  'tree-sitter-bash/tree-sitter-bash.wasm'
]) {
  fs.copyFileSync(require.resolve(wasm), path.join(dist, path.basename(wasm)))
}
fs.writeFileSync(path.join(dist, 'package.json'), JSON.stringify({ type: 'module' }) + '\n')
console.log(`dist/: ${fs.readdirSync(dist).join(', ')}`)
