/**
 * go: where its flags write (`-o`, the test profiles, `-outputdir`, `-pkgdir`), the flags that
 * run other programs (`-toolexec`, `-exec`, `-vettool`, an overlay or another go.mod), the flags
 * it hands the compiler, assembler and linker (`-gcflags`, `-ldflags`: some of theirs write files
 * or run programs), `go env -w` (configuration later go commands read) and `go install` (GOBIN).
 *
 * go reads flags with Go's flag package: one dash or two (`-o`, `--o`), the value attached with
 * `=` or as the next word (`-o=x`, `-o x`), no abbreviation, no cluster. `go test` hands the
 * flags it does not know, and every `-test.NAME` flag, to the test binary, which reads them the
 * same way (`-test.coverprofile=F` writes F): both are read here, wherever they stand.
 */
import type { ShellWord } from '../shell-word.js'
import {
  type CommandEffect,
  dynamicArgument,
  fileWrite,
  lit,
  mayBeOption,
  network,
  read,
  runsCode,
  writesUnknown
} from './effects.js'

/** Flags of go's commands and of the test binary that take a value (without `test.`). */
const GO_VALUE = new Set([
  'C',
  'p',
  'o',
  'asmflags',
  'buildmode',
  'compiler',
  'covermode',
  'coverpkg',
  'gccgoflags',
  'gcflags',
  'installsuffix',
  'ldflags',
  'mod',
  'modfile',
  'overlay',
  'pgo',
  'pkgdir',
  'tags',
  'toolexec',
  'exec',
  'vet',
  'vettool',
  'bench',
  'benchtime',
  'blockprofile',
  'blockprofilerate',
  'count',
  'coverprofile',
  'cpu',
  'cpuprofile',
  'fuzz',
  'fuzzcachedir',
  'fuzzminimizetime',
  'fuzztime',
  'gocoverdir',
  'list',
  'memprofile',
  'memprofilerate',
  'mutexprofile',
  'mutexprofilefraction',
  'outputdir',
  'parallel',
  'run',
  'shuffle',
  'skip',
  'testlogfile',
  'timeout',
  'trace',
  'f',
  'reuse',
  'output',
  'objdir',
  'http'
])

/** Flags whose value is a file go (or the test binary, or a go tool) writes. */
const GO_WRITES_FILE = new Set([
  'o',
  'coverprofile',
  'cpuprofile',
  'memprofile',
  'blockprofile',
  'mutexprofile',
  'trace',
  'testlogfile',
  'output'
])

/** Flags whose value is a directory written below. */
const GO_WRITES_TREE = new Set(['outputdir', 'pkgdir', 'gocoverdir', 'fuzzcachedir', 'objdir'])

/** Flags that run another program, or build from input the policy cannot see. */
const GO_RUNS = new Set(['toolexec', 'exec', 'overlay', 'modfile', 'vettool'])

/** Flags whose value go hands to the compiler, assembler or linker as their own flags. */
const TOOL_FLAGS = new Set(['gcflags', 'ldflags', 'asmflags', 'gccgoflags'])

/**
 * The compiler's, assembler's and linker's flags that neither write a file nor run a program
 * (`-ldflags="-s -w -X main.v=1"`, `-gcflags=all=-N -l`); any other may (`-o`, `-cpuprofile`,
 * `-json=0,file://DIR`, `-extld=PROG`).
 */
const SAFE_TOOL_FLAGS = new Set([
  'N',
  'l',
  'm',
  'e',
  'S',
  'B',
  'C',
  'race',
  'trimpath',
  'lang',
  'std',
  'smallframes',
  'wb',
  's',
  'w',
  'X',
  'buildid',
  'linkmode',
  'v',
  'strictdups',
  'compressdwarf',
  'H',
  'r',
  'D'
])

/** The Go toolchain's own tools (`go tool NAME`); any other is a tool the module declares. */
const GO_TOOLS = new Set([
  'addr2line',
  'asm',
  'buildid',
  'cgo',
  'compile',
  'covdata',
  'cover',
  'dist',
  'doc',
  'fix',
  'link',
  'nm',
  'objdump',
  'pack',
  'pprof',
  'test2json',
  'trace',
  'vet'
])

/** A flag word's name (without dashes and `test.`) and its attached value, or undefined. */
function goFlag(text: string): { name: string; value?: string } | undefined {
  const m = /^--?([A-Za-z][\w.-]*)(?:=([\s\S]*))?$/.exec(text)
  if (m === null) return undefined
  const name = (m[1] as string).replace(/^test\./, '')
  return m[2] === undefined ? { name } : { name, value: m[2] }
}

/** What the tool flags in a `-gcflags` / `-ldflags` value do: nothing, or a problem. */
function toolFlagEffects(label: string, value: ShellWord): CommandEffect[] {
  if (!value.literal) {
    return [
      dynamicArgument(
        label,
        value,
        'a compiler or linker flag that writes a file or runs a program'
      )
    ]
  }
  // `all=-N -l`, `example.com/...=-m`: a package pattern, then the flags
  const flags = value.text.replace(/^[^-\s][^=\s]*=/, '')
  const words = flags.split(/\s+/).map((w) => w.replace(/^["']|["']$/g, ''))
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string
    if (w === '') continue
    const flag = goFlag(w)
    if (flag !== undefined && SAFE_TOOL_FLAGS.has(flag.name)) {
      // `-X importpath.name=value`: its value is the next word
      if (flag.name === 'X' && flag.value === undefined) i++
      continue
    }
    return [
      runsCode(
        `${label} ${w}: the compiler, assembler and linker flags the policy does not know can ` +
          'write files (-o, -cpuprofile, -json) or run programs (-extld)'
      )
    ]
  }
  return []
}

export function goEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  // the command: the first word that is neither a flag nor `-C`'s value
  let at = 1
  while (at < words.length) {
    const t = (words[at] as ShellWord).text
    if (!t.startsWith('-')) break
    at += /^--?C$/.test(t) ? 2 : 1
  }
  const command = words[at]
  const sub = command?.literal === true ? command.text : ''
  const second = words[at + 1]?.literal === true ? (words[at + 1] as ShellWord).text : ''
  if (sub === 'install') {
    out.push(writesUnknown(`${name} install writes GOBIN (~/go/bin), on later steps' PATH`))
  }
  if (sub === 'env' && words.some((w) => w.literal && /^--?[wu](?:=|$)/.test(w.text))) {
    out.push(
      runsCode(
        `${name} env -w changes go's configuration file (GOENV), where GOFLAGS=-toolexec, CC or ` +
          'GOPROXY make every later go command run programs or fetch elsewhere'
      )
    )
  }
  if (sub === 'tool' && second !== '' && !second.startsWith('-') && !GO_TOOLS.has(second)) {
    out.push(runsCode(`${name} tool ${second} runs a tool the module declares`))
  }
  const vendor = sub === 'mod' && second === 'vendor'
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (mayBeOption(w)) {
        out.push(
          dynamicArgument(name, w, 'a flag that writes a file (-o) or runs a program (-toolexec)')
        )
      }
      continue
    }
    const flag = goFlag(w.text)
    if (flag === undefined) continue
    let value: ShellWord | undefined
    if (flag.value !== undefined) {
      value = lit(flag.value) // go does not expand `~` (nor does the shell after `-o=`)
    } else if (GO_VALUE.has(flag.name)) {
      value = words[i + 1]
      i++
    }
    const label = `${name} -${flag.name}`
    if (GO_RUNS.has(flag.name)) {
      out.push(runsCode(`${label} runs or reads build input the policy cannot see`))
    } else if (flag.name === 'http') {
      out.push(network(`${label} serves the profile on a network address`))
    }
    if (value === undefined) continue
    if (flag.name === 'o' && vendor) out.push(fileWrite(`${name} mod vendor -o`, value, true))
    else if (GO_WRITES_FILE.has(flag.name)) out.push(fileWrite(label, value))
    else if (GO_WRITES_TREE.has(flag.name)) out.push(fileWrite(label, value, true))
    else if (TOOL_FLAGS.has(flag.name)) out.push(...toolFlagEffects(label, value))
    else if (
      (flag.name === 'pgo' && !(value.literal && /^(?:auto|off|default\.pgo)$/.test(value.text))) ||
      flag.name === 'reuse'
    ) {
      out.push(read(label, value))
    }
  }
  return out
}
