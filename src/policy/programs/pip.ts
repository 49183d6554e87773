/** pip and `python -m pip`: the indexes and URLs it fetches from. */
import type { ShellWord } from '../shell-word.js'
import { urlEffect } from './curl-wget.js'
import {
  type CommandEffect,
  dynamicArgument,
  fileWrite,
  lit,
  mayBeOption,
  network,
  runsCode,
  writesUnknown
} from './effects.js'
import { mypyEffects, ruffEffects } from './linters.js'
import { pytestEffects } from './pytest.js'

/** pip's options whose value is a URL it fetches from. */
export const PIP_URL_OPTIONS = ['index-url', 'extra-index-url', 'find-links', 'proxy']
/** pip's options whose value is where it installs (a write to that whole tree). */
export const PIP_LOCATION_OPTIONS = [
  'target',
  'root',
  'prefix',
  'src',
  'log',
  'log-file',
  'report',
  'cache-dir',
  'dest',
  'wheel-dir'
]
/** pip's options that weaken TLS. */
export const PIP_TLS_OPTIONS = ['trusted-host', 'cert']
/** pip's options that take the next word as a value (those with an effect are above). */
export const PIP_VALUE_OPTIONS = [
  'requirement',
  'constraint',
  'editable',
  'target',
  'platform',
  'python-version',
  'implementation',
  'abi',
  'root',
  'prefix',
  'src',
  'upgrade-strategy',
  'install-option',
  'global-option',
  'no-binary',
  'only-binary',
  'progress-bar',
  'log',
  'log-file',
  'timeout',
  'exists-action',
  'client-cert',
  'cache-dir',
  'retries',
  'config-settings',
  'python',
  'report',
  'dest',
  'wheel-dir',
  'path',
  'format',
  'exclude',
  'root-user-action',
  'keyring-provider',
  'use-feature',
  'use-deprecated',
  'group'
]
export const PIP_SHORT_VALUE: Readonly<Record<string, string>> = {
  i: 'index-url',
  f: 'find-links',
  r: 'requirement',
  c: 'constraint',
  e: 'editable',
  t: 'target',
  d: 'dest',
  w: 'wheel-dir',
  C: 'config-settings'
}

/** pip's long options without a value (an exact name is never read as a prefix of another). */
export const PIP_FLAGS = [
  'pre',
  'user',
  'upgrade',
  'no-deps',
  'no-index',
  'force-reinstall',
  'ignore-installed',
  'quiet',
  'verbose',
  'no-cache-dir',
  'isolated',
  'require-hashes',
  'dry-run',
  'break-system-packages',
  'no-build-isolation',
  'no-clean',
  'compile',
  'no-compile',
  'prefer-binary',
  'no-input',
  'no-color',
  'disable-pip-version-check',
  'help',
  'version'
]

/** The long options of pip (optparse takes unambiguous prefixes) a written name can stand for. */
export function pipLong(written: string): string[] {
  if (PIP_FLAGS.includes(written)) return []
  const all = [...PIP_URL_OPTIONS, ...PIP_TLS_OPTIONS, ...PIP_VALUE_OPTIONS]
  if (all.includes(written)) return [written]
  return all.filter((o) => o.startsWith(written))
}

/**
 * pip (and `python -m pip`): URL and VCS requirements, index, find-links and proxy URLs (the
 * url rules decide), options that trust a host or certificate (denied). Every word that is not
 * an option is read as a requirement, option values included, so that a value misread cannot
 * hide a URL.
 */
export function pipEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const out: CommandEffect[] = []
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as ShellWord
    if (!w.literal) {
      if (mayBeOption(w)) {
        out.push(dynamicArgument(name, w, 'an index URL, a proxy or a package URL'))
      } else if (/[:@]/.test(w.prefix)) {
        out.push(urlEffect(name, w, []))
      }
      continue
    }
    const t = w.text
    let names: string[] = []
    let value: ShellWord | undefined
    if (t.startsWith('--')) {
      const eq = t.indexOf('=')
      names = pipLong(eq < 0 ? t.slice(2) : t.slice(2, eq))
      value = eq >= 0 ? lit(t.slice(eq + 1)) : words[i + 1]
    } else if (t.startsWith('-') && t.length > 1) {
      for (let j = 1; j < t.length; j++) {
        const long = PIP_SHORT_VALUE[t[j] as string]
        if (long === undefined) continue
        names = [long]
        value = j + 1 < t.length ? lit(t.slice(j + 1)) : words[i + 1]
        break
      }
    } else {
      // a requirement: a URL, a VCS URL, or `name @ url`
      const url = /^[A-Za-z0-9._-]+(?:\[[^\]]*\])?\s*@\s*(.+)$/.exec(t)?.[1] ?? t
      if (/^(?:git|hg|svn|bzr)\+/i.test(url) || /^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
        const plain = url.replace(/^(?:git|hg|svn|bzr)\+(?=https?:)/i, '').replace(/@[^/@]*$/, '')
        out.push(urlEffect(`${name} ${t}`, lit(plain), []))
      }
      continue
    }
    if (
      /^--user$/.test(t) ||
      (t.startsWith('--') && 'user'.startsWith(t.slice(2)) && t.length > 3)
    ) {
      out.push(
        writesUnknown(
          `${name} --user installs into HOME (~/.local), where a .pth file runs in every later Python`
        )
      )
    }
    for (const n of names) {
      if (PIP_LOCATION_OPTIONS.includes(n) && value !== undefined) {
        // the tree it installs into: judged by the write rules (`--target src/vendor`)
        out.push(fileWrite(`${name} --${n}`, value, true))
      }
      if (PIP_TLS_OPTIONS.includes(n)) {
        out.push(network(`${name} --${n} trusts a host or certificate it would otherwise refuse`))
      } else if (PIP_URL_OPTIONS.includes(n) && value !== undefined) {
        // --find-links may be a local directory
        if (n === 'find-links' && value.literal && !value.text.includes(':')) continue
        out.push(urlEffect(`${name} --${n}`, value, []))
      }
    }
  }
  // `pip config set|unset|edit`: pip's configuration file, which every later pip reads
  const config = words.findIndex((w) => w.literal && w.text === 'config')
  const action =
    config > 0
      ? words.slice(config + 1).find((w) => /^(?:set|unset|edit)$/.test(w.text))
      : undefined
  if (action?.text === 'edit') out.push(runsCode(`${name} config edit runs an editor`))
  else if (action !== undefined) {
    out.push(
      writesUnknown(
        `${name} config ${action.text} writes pip's configuration (in HOME, or the site's), which ` +
          'later pip commands read (index-url, target, trusted-host)'
      )
    )
  }
  return out
}

/** Tools run as `python -m NAME` whose options the policy reads, as when run by their own name. */
const MODULE_TOOLS: Readonly<
  Record<string, (words: readonly ShellWord[], name: string) => CommandEffect[]>
> = {
  pip: pipEffects,
  pip3: pipEffects,
  pytest: pytestEffects,
  mypy: mypyEffects,
  ruff: ruffEffects
}

/** `python -m pip …` is pip, `python -m pytest …` pytest (MODULE_TOOLS). */
export function pythonEffects(words: readonly ShellWord[], name: string): CommandEffect[] {
  const m = words.findIndex((w, i) => i > 0 && w.literal && w.text === '-m')
  const module = m > 0 ? words[m + 1] : undefined
  if (module === undefined || !module.literal) return []
  const tool = Object.hasOwn(MODULE_TOOLS, module.text) ? MODULE_TOOLS[module.text] : undefined
  // `-m pip3` is labelled as pip, as it always was
  const label = `${name} -m ${module.text === 'pip3' ? 'pip' : module.text}`
  return tool === undefined ? [] : tool(words.slice(m + 1), label)
}
