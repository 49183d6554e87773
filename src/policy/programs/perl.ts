/**
 * perl (and ruby, which shares the shape: `-e` scripts, `-i` in place, `-n`/`-p` loops over the
 * operands): a general language. A script file, a module loaded by `-M`/`-r` from a directory
 * the agent can write (`-I`), or a script only known at run time runs code the policy cannot
 * see. A literal `-e` script is allowed only when it holds none of the language's ways to open a
 * file, run a command or call a function by a name built at run time; `-i` writes every operand.
 */
import type { ShellWord } from '../shell-word.js'
import { type CommandEffect, dynamicArgument, fileWrite, mayBeOption, runsCode } from './effects.js'

/** Words of perl or ruby that open files, run commands, load code or reach the network. */
const OPENERS =
  /\b(?:open|sysopen|opendir|system|exec|spawn|qx|readpipe|fork|do|require|require_relative|load|use|no|eval|instance_eval|class_eval|module_eval|send|public_send|__send__|method|define_method|const_get|glob|unlink|rename|mkdir|rmdir|chmod|chown|chdir|chroot|link|symlink|truncate|utime|socket|connect|syscall|dbmopen|tie|kill|pipe|ioctl|fcntl|dump|binmode|sysread|syswrite|select|CORE|ARGV|ARGF|INC|ENV|SIG|sub|can|goto|format|write|File|IO|Dir|Kernel|Process|Open3|Socket|TCPSocket|URI|Net|ObjectSpace|Marshal|YAML|Pathname|FileUtils|popen|readlines|read|foreach|binread|__DATA__|__END__|DATA|STDIN|STDOUT|STDERR|exit!)\b/

/** Constructs that call or name code through strings or references. */
const INDIRECT =
  /`|::|->\s*[($&{]|[&*$@%]\s*\{\s*["'$\\`^]|\\&|\(\?\??\{|%x|\$\s*["']|[=!]~\s*\$|[/}#|!,]\s*[a-z]*e[a-z]*e[a-z]*\b|<\s*[$A-Za-z*~/.][^>]*>/

/** The module names a -M/-m/-r may load: the standard library's harmless ones. */
const SAFE_MODULES =
  /^-?(?:strict|warnings|utf8|feature|List::Util|Scalar::Util|Data::Dumper|JSON::PP|POSIX=floor|json|set|time|date)(?:=.*)?$/

export function perlEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const ruby = /^(?:ruby|irb)$/.test(name)
  const out: CommandEffect[] = []
  const scripts: ShellWord[] = []
  const operands: ShellWord[] = []
  let inPlace = false
  let options = true
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    const t = w.literal ? w.text : w.prefix
    if (options && mayBeOption(w)) return [dynamicArgument(name, w, 'an option that runs code')]
    if (options && t === '--') {
      options = false
      continue
    }
    if (!options || !t.startsWith('-') || t === '-') {
      operands.push(w)
      options = false // perl and ruby read switches up to the first operand
      continue
    }
    // a cluster of switches: `-lne 'script'`, `-pi.bak`, `-MList::Util=sum`
    for (let j = 1; j < t.length; j++) {
      const c = t[j] as string
      const rest = t.slice(j + 1)
      if (c === '-') break // a long option (`--version`, ruby's `--disable-gems`)
      if (c === 'e' || c === 'E') {
        const script = rest !== '' ? { ...w, text: rest, prefix: rest } : words[++i]
        if (script !== undefined) scripts.push(script)
        break
      }
      if (c === 'i') {
        inPlace = true
        if (!ruby) break // perl's -i takes the rest as a backup suffix
        continue
      }
      if (c === 'M' || c === 'm' || (ruby && c === 'r')) {
        const module = rest !== '' ? rest : (words[++i]?.text ?? '')
        if (!SAFE_MODULES.test(module)) {
          out.push(runsCode(`${name} -${c}${module} loads a module the policy cannot see`))
        }
        break
      }
      if (c === 'I' || c === 'x' || c === 'd' || c === 'S' || (ruby && c === 'C')) {
        out.push(runsCode(`${name} -${c} loads or runs code from a file or directory`))
        break
      }
      if (/[0lFCt]/.test(c) && !ruby) break // takes the rest of the word as its value
    }
  }
  if (scripts.length === 0) {
    if (operands.length > 0) {
      out.push(
        runsCode(
          `${name} runs the script file ${operands[0]?.text ?? ''}, which the policy cannot see`
        )
      )
    }
    return out
  }
  for (const script of scripts) {
    if (!script.literal) {
      out.push(runsCode(`the ${name} script "${script.text}" is only known when it runs`))
      continue
    }
    const opener = OPENERS.exec(script.text) ?? INDIRECT.exec(script.text)
    if (opener !== null) {
      out.push(
        runsCode(
          `the ${name} script uses "${opener[0]}", which can open files, run commands or call code by a name built when it runs`
        )
      )
    }
  }
  if (inPlace) for (const file of operands) out.push(fileWrite(`${name} -i`, file))
  return out
}
