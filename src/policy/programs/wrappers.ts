/**
 * The programs that run other commands (wrappers: `env`, `nice`, `timeout`, `xargs`, `sudo`,
 * `sh -c`, `eval`, ...), and the builtins that change where later commands run (`cd`, `pushd`)
 * or write (`tee`, `time -o`): what each one runs, for the analyzer to judge in turn.
 */
import path from 'node:path'
import { dynamicWord, literalWord, type ShellWord } from '../shell-word.js'
import type { Recorder, Run } from './effects.js'
import { findRuns } from './find.js'
import { optionSpec, scanOptions, type OptionSpec, type Scan } from './options.js'
import type { OptionRow } from './program.js'

export const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh', 'yash', 'fish'])

/** The synthetic trailing word for arguments supplied at run time (`xargs cmd`). */
export const RUNTIME_ARGS: ShellWord = dynamicWord('…')

// ---------------------------------------------------------------------------------------------
// Wrappers: commands that run another command

export function wordsFrom(args: ShellWord[], scan: Scan, label: string): Run[] {
  if (scan.dynamic) {
    return [{ kind: 'dynamic', reason: `the command run by ${label} is only known at run time` }]
  }
  return [{ kind: 'words', words: args.slice(scan.index) }]
}

export const WRAPPERS = new Set([
  ...SHELLS,
  'busybox',
  'builtin',
  'command',
  'doas',
  'env',
  'eval',
  'exec',
  'find',
  'flock',
  'mapfile',
  'nice',
  'nohup',
  'readarray',
  'setsid',
  'stdbuf',
  'sudo',
  'time',
  'timeout',
  'trap',
  'watch',
  'xargs'
])

/**
 * Programs that run another command the policy does not unwrap (their options and operands are
 * not modelled): what they run cannot be judged, so they are denied however they are allowed.
 */
export const OPAQUE_RUNNERS = new Set([
  'ionice',
  'taskset',
  'chrt',
  'prlimit',
  'setpriv',
  'unshare',
  'nsenter',
  'chroot',
  'unbuffer',
  'script',
  'expect',
  'parallel',
  'firejail',
  'systemd-run',
  'runuser',
  'su',
  'sg',
  'newgrp',
  'faketime',
  'catchsegv',
  'strace',
  'ltrace',
  'gdb',
  'valgrind',
  'perf',
  'nix-shell',
  'direnv',
  'dbus-run-session',
  'xvfb-run',
  'setarch',
  'linux32',
  'linux64',
  'choom',
  'ssh-agent',
  'capsh',
  'bwrap',
  'fakeroot',
  'numactl',
  'cpulimit',
  'trickle',
  'dbus-launch',
  'chronic',
  'sem',
  'entr',
  'watchexec',
  'tsp',
  'cgexec',
  'rlwrap',
  'proxychains',
  'proxychains4',
  'torsocks',
  'run-parts',
  'start-stop-daemon',
  'daemonize',
  'with-lock-ex',
  'lckdo'
])

export function isWrapper(name: string): boolean {
  return WRAPPERS.has(path.basename(name))
}

export function joinScript(words: ShellWord[]): ShellWord {
  const literal = words.every((w) => w.literal)
  const text = words.map((w) => w.text).join(' ')
  return literal ? literalWord(text) : dynamicWord(text)
}

/** What a command runs (other commands, scripts) and its side effects the policy checks. */
export function runs(words: ShellWord[], recorder: Recorder): Run[] {
  const name = path.basename((words[0] as ShellWord).text)
  if (SHELLS.has(name)) return shellRuns(words)
  switch (name) {
    case 'eval': {
      const scan = scanOptions(words, {})
      const args = words.slice(scan.index)
      return args.length === 0 ? [] : [{ kind: 'script', script: joinScript(args) }]
    }
    case 'trap': {
      const scan = scanOptions(words, {})
      const args = words.slice(scan.index)
      const action = args[0]
      if (args.length < 2 || action === undefined) return []
      if (action.literal && (action.text === '-' || /^\d+$/.test(action.text))) return []
      return [{ kind: 'script', script: action }]
    }
    case 'source':
    case '.': {
      const file = words[scanOptions(words, {}).index]
      if (file !== undefined && (!file.literal || READS_INPUT.test(file.text))) {
        return [{ kind: 'dynamic', reason: `the script "${file.text}" is only known at run time` }]
      }
      return []
    }
    case 'env':
      return envRuns(words, recorder)
    case 'xargs':
      return xargsRuns(words)
    case 'find':
      return findRuns(words, recorder)
    case 'timeout': {
      const scan = scanOptions(words, {
        short: 'sk',
        long: ['signal', 'kill-after'],
        flags: ['foreground', 'preserve-status', 'verbose', 'help', 'version']
      })
      // the first operand is the duration
      return wordsFrom(words, { ...scan, index: Math.min(scan.index + 1, words.length) }, name)
    }
    case 'nice':
      return wordsFrom(
        words,
        scanOptions(words, {
          short: 'n',
          long: ['adjustment'],
          flags: ['help', 'version'],
          numeric: true
        }),
        name
      )
    case 'nohup':
    case 'builtin':
    case 'busybox':
    case 'setsid':
    case 'command':
      return wordsFrom(words, scanOptions(words, {}), name)
    case 'stdbuf':
      return wordsFrom(
        words,
        scanOptions(words, {
          short: 'ioe',
          long: ['input', 'output', 'error'],
          flags: ['help', 'version']
        }),
        name
      )
    case 'exec':
      return wordsFrom(words, scanOptions(words, { short: 'a' }), name)
    case 'doas':
      return wordsFrom(words, scanOptions(words, { short: 'uC' }), name)
    case 'sudo': {
      const scan = scanOptions(words, {
        short: 'ugCDhprtTUR',
        long: [
          'user',
          'group',
          'close-from',
          'chdir',
          'host',
          'prompt',
          'role',
          'type',
          'command-timeout',
          'other-user',
          'chroot'
        ],
        flags: [
          'askpass',
          'background',
          'bell',
          'edit',
          'help',
          'set-home',
          'login',
          'remove-timestamp',
          'reset-timestamp',
          'list',
          'non-interactive',
          'preserve-groups',
          'preserve-env',
          'stdin',
          'shell',
          'validate',
          'version'
        ]
      })
      const shellMode = scan.options.some(([o]) => ['s', 'i', 'shell', 'login'].includes(o))
      if (shellMode && !scan.dynamic && scan.index < words.length) {
        return [{ kind: 'script', script: joinScript(words.slice(scan.index)) }]
      }
      return wordsFrom(words, scan, name)
    }
    case 'time': {
      const scan = scanOptions(words, {
        short: 'fo',
        long: ['format', 'output'],
        flags: ['append', 'portability', 'quiet', 'verbose', 'help', 'version']
      })
      for (const [option, value] of scan.options) {
        if ((option === 'o' || option === 'output') && value !== undefined) {
          recorder.recordWrite(`${name} -o`, value)
        }
      }
      return wordsFrom(words, scan, name)
    }
    case 'watch': {
      const scan = scanOptions(words, {
        short: 'nq',
        long: ['interval'],
        flags: [
          'exec',
          'beep',
          'color',
          'no-color',
          'errexit',
          'chgexit',
          'precise',
          'no-title',
          'no-wrap',
          'no-linewrap',
          'differences',
          'equexit',
          'help',
          'version'
        ]
      })
      if (scan.dynamic) return wordsFrom(words, scan, name)
      const rest = words.slice(scan.index)
      if (rest.length === 0) return []
      if (scan.options.some(([o]) => o === 'x' || o === 'exec')) {
        return [{ kind: 'words', words: rest }]
      }
      return [{ kind: 'script', script: joinScript(rest) }]
    }
    case 'flock': {
      for (let i = 1; i < words.length; i++) {
        const w = words[i] as ShellWord
        if (w.literal && (w.text === '-c' || w.text === '--command')) {
          const script = words[i + 1]
          return script === undefined ? [] : [{ kind: 'script', script }]
        }
      }
      const scan = scanOptions(words, {
        short: 'wE',
        long: ['timeout', 'conflict-exit-code'],
        flags: [
          'shared',
          'exclusive',
          'unlock',
          'nonblock',
          'close',
          'no-fork',
          'verbose',
          'help',
          'version'
        ]
      })
      // the first operand is the lock file
      return wordsFrom(words, { ...scan, index: Math.min(scan.index + 1, words.length) }, name)
    }
    case 'mapfile':
    case 'readarray': {
      const scan = scanOptions(words, { short: 'dnOsuCc' })
      const callback = scan.options.find(([o]) => o === 'C')?.[1]
      return callback === undefined ? [] : [{ kind: 'script', script: callback }]
    }
    case 'tee': {
      const scan = scanOptions(words, {})
      for (const file of words.slice(scan.index)) recorder.recordWrite(name, file)
      return []
    }
    case 'popd':
      // back to a directory already on the stack: one of the directories the cds so far lead to
      // (DIRSTACK itself is protected)
      return []
    case 'cd':
    case 'pushd': {
      const scan = scanOptions(words, {})
      const target = words[scan.index]
      if (scan.dynamic || (target !== undefined && !target.literal)) {
        recorder.recordCd({ kind: 'unknown' })
      } else if (target === undefined) {
        // `cd` goes HOME; `pushd` swaps with a directory already on the stack
        if (name === 'cd') recorder.recordCd({ kind: 'home' })
      } else if (target.text === '-' || /^[+-]\d+$/.test(target.text)) {
        recorder.recordCd({ kind: 'unknown' })
      } else {
        recorder.recordCd({ kind: 'path', word: target })
      }
      return []
    }
    default:
      if (OPAQUE_RUNNERS.has(name) && words.length > 1) {
        return [
          {
            kind: 'dynamic',
            reason: `${name} runs another command with options the policy does not model`
          }
        ]
      }
      return []
  }
}

/** Builtins whose option makes later commands run other code: the option letter, and why. */
export const LOADS_CODE: Record<string, [string, string]> = {
  hash: ['p', 'hash -p makes a command name run another program'],
  enable: ['f', 'enable -f loads a shared library into the shell']
}

/** Files that are the command's input or another process's, not a script on disk. */
export const READS_INPUT = /^\/(?:dev|proc)\//

export function shellRuns(words: ShellWord[]): Run[] {
  const stdin: Run = {
    kind: 'dynamic',
    reason: 'the shell reads the commands it runs from its input, which is only known at run time'
  }
  let command = false
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as ShellWord
    if (!word.literal) {
      if (command) return [{ kind: 'script', script: word }]
      return [
        { kind: 'dynamic', reason: `the shell's script "${word.text}" is only known at run time` }
      ]
    }
    const a = word.text
    if (a === '-' || a === '--') {
      const next = words[i + 1]
      if (command) return next === undefined ? [] : [{ kind: 'script', script: next }]
      if (next === undefined) return [stdin]
      return next.literal
        ? []
        : [
            {
              kind: 'dynamic',
              reason: `the shell's script "${next.text}" is only known at run time`
            }
          ]
    }
    if (a.startsWith('--')) {
      if (a === '--rcfile' || a === '--init-file') i++
      continue
    }
    if ((a.startsWith('-') || a.startsWith('+')) && a.length > 1) {
      const flags = a.slice(1)
      if (flags.includes('c')) command = true
      else if (flags.includes('s')) return [stdin]
      if (/[oO]/.test(flags)) i++ // `-o pipefail`, `-O extglob`
      continue
    }
    // the command string after -c, or a script file (the rules decide on "bash file.sh")
    if (!command && READS_INPUT.test(a)) return [stdin] // `bash /dev/stdin`, `sh /proc/self/fd/0`
    return command ? [{ kind: 'script', script: word }] : []
  }
  return command ? [] : [stdin]
}

/** env's options with a value or an effect, and every long option it has. */
export const ENV_ROWS: OptionRow[] = [
  { short: 'u', long: 'unset', value: 'required', does: 'sets-variable' },
  { short: 'C', long: 'chdir', value: 'required' },
  { short: 'S', long: 'split-string', value: 'required', does: 'runs' },
  { short: 'P', value: 'required', does: 'sets-variable' },
  { long: 'ignore-environment' },
  { long: 'null' },
  { long: 'debug' },
  { long: 'list-signal-handling' },
  { long: 'block-signal', value: 'optional' },
  { long: 'default-signal', value: 'optional' },
  { long: 'ignore-signal', value: 'optional' },
  { long: 'help' },
  { long: 'version' }
]

export const ENV_OPTIONS: OptionSpec = optionSpec(ENV_ROWS)

export function envRuns(words: ShellWord[], recorder: Recorder): Run[] {
  const scan = scanOptions(words, ENV_OPTIONS)
  if (scan.dynamic) {
    return [{ kind: 'dynamic', reason: 'the command run by env is only known at run time' }]
  }
  // `env -C DIR cmd` runs cmd in DIR: its relative paths (and the request's) lead there
  for (const [option, value] of scan.options) {
    if (option !== 'C' && option !== 'chdir') continue
    recorder.recordCd(value?.literal === true ? { kind: 'path', word: value } : { kind: 'unknown' })
  }
  const assignments: string[] = []
  let i = scan.index
  for (; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      // `env "$X" cmd`: an assignment or the command; cannot tell
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.prefix)) {
        assignments.push(w.text)
        continue
      }
      return [{ kind: 'dynamic', reason: 'the command run by env is only known at run time' }]
    }
    if (!/^[^=]+=/.test(w.text)) break
    assignments.push(w.text)
  }
  const rest = words.slice(i)
  const split = scan.options.find(([o]) => o === 'S' || o === 'split-string')?.[1]
  if (split !== undefined) return [{ kind: 'script', script: joinScript([split, ...rest]) }]
  return [{ kind: 'words', words: rest, assignments }]
}

/** xargs's options with a value or an effect, and every long option it has. */
export const XARGS_ROWS: OptionRow[] = [
  { short: 'a', long: 'arg-file', value: 'required', does: 'reads' },
  { short: 'd', long: 'delimiter', value: 'required' },
  { short: 'E', value: 'required' },
  { short: 'I', value: 'required' },
  { short: 'L', value: 'required' },
  { short: 'n', long: 'max-args', value: 'required' },
  { short: 'P', long: 'max-procs', value: 'required' },
  { short: 's', long: 'max-chars', value: 'required' },
  { long: 'process-slot-var', value: 'required', does: 'sets-variable' },
  { short: 'e', value: 'optional' },
  { short: 'i', value: 'optional' },
  { short: 'l', value: 'optional' },
  { long: 'null' },
  { long: 'interactive' },
  { long: 'no-run-if-empty' },
  { long: 'open-tty' },
  { long: 'exit' },
  { long: 'show-limits' },
  { long: 'verbose' },
  { long: 'eof', value: 'optional' },
  { long: 'replace', value: 'optional' },
  { long: 'max-lines', value: 'optional' },
  { long: 'help' },
  { long: 'version' }
]

export const XARGS_OPTIONS: OptionSpec = optionSpec(XARGS_ROWS)

export function xargsRuns(words: ShellWord[]): Run[] {
  const scan = scanOptions(words, XARGS_OPTIONS)
  if (scan.dynamic) {
    return [{ kind: 'dynamic', reason: 'the command run by xargs is only known at run time' }]
  }
  let replace: string | undefined
  for (const [option, value] of scan.options) {
    if (option === 'I' || option === 'replace') replace = value?.text ?? '{}'
    if (option === 'i') replace = value?.text ?? '{}'
  }
  let rest = words.slice(scan.index)
  if (rest.length === 0) rest = [literalWord('echo')]
  if (replace !== undefined) {
    const r = replace
    return [
      {
        kind: 'words',
        words: rest.map((w) =>
          r.length > 0 && w.text.includes(r)
            ? dynamicWord(w.text, w.literal ? w.text.slice(0, w.text.indexOf(r)) : w.prefix)
            : w
        )
      }
    ]
  }
  return [{ kind: 'words', words: [...rest, RUNTIME_ARGS] }]
}
