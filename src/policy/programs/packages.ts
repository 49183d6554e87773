/**
 * Package specs and connection options shared by npm, pnpm, yarn and pip: where a spec fetches
 * from.
 */
import type { ShellWord } from '../shell-word.js'
import { urlEffect } from './curl-wget.js'
import { type CommandEffect, lit, network } from './effects.js'

// ---------------------------------------------------------------------------------------------
// Package specs and connection options (npm, pnpm, yarn, pip)

/** Where an npm package spec fetches from, when it is not the registry (a URL to check). */
export function npmSpecUrl(spec: string): string | undefined {
  let t = spec
  // `name@<spec>` and `@scope/name@<spec>`: the part after the name
  const at = t.indexOf('@', t.startsWith('@') ? 1 : 0)
  const named = at > 0 && /^(?:@[^/@:]+\/)?[^/@:]+$/.test(t.slice(0, at))
  if (named && /[:/]/.test(t.slice(at + 1))) t = t.slice(at + 1)
  const lower = t.toLowerCase()
  if (lower.startsWith('npm:')) return undefined
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(lower)) return t.replace(/^git\+(?=https?:)/i, '')
  const hosted = /^(github|gitlab|bitbucket|gist):(.*)$/i.exec(t)
  if (hosted !== null) {
    const host = {
      github: 'github.com',
      gitlab: 'gitlab.com',
      bitbucket: 'bitbucket.org',
      gist: 'gist.github.com'
    }[(hosted[1] as string).toLowerCase() as 'github' | 'gitlab' | 'bitbucket' | 'gist']
    return `https://${host}/${(hosted[2] as string).split('#')[0] ?? ''}`
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(t) && !/^file:/i.test(t)) return t // git@host:x, other schemes
  // `user/repo` (not a path: no leading `.`, `/`, `~`) is a GitHub repository
  if (/^[^.@/~\\][^@/:\\]*\/[^/\\]+$/.test(t) && spec === t) {
    return `https://github.com/${t.split('#')[0] ?? ''}`
  }
  return undefined
}

/** A package spec that fetches from somewhere: a URL effect (the url rules decide). */
export function specEffect(program: string, spec: ShellWord): CommandEffect | undefined {
  if (!spec.literal) return undefined // npmDynamicWord and the like judge words known later
  const u = npmSpecUrl(spec.text)
  if (u === undefined) return undefined
  return urlEffect(`${program} ${spec.text}`, lit(u), [])
}

/**
 * npm / pnpm / yarn configuration that connects or weakens TLS: a proxy must pass the url rules,
 * a replaced CA or `strict-ssl false` lets anyone on the path answer for any host.
 */
export function connectionOption(
  program: string,
  key: string,
  value: ShellWord | undefined,
  negated: boolean
): CommandEffect | undefined {
  if (key === 'proxy' || key === 'https-proxy' || key === 'http-proxy') {
    if (negated || value === undefined) return undefined
    if (value.literal && (value.text === '' || value.text === 'null' || value.text === 'false'))
      return undefined
    return urlEffect(`${program} --${key}`, value, [])
  }
  if (key === 'strict-ssl') {
    const off =
      negated ||
      (value !== undefined && (!value.literal || /^(?:false|0|no|off)?$/i.test(value.text)))
    return off
      ? network(`${program} --strict-ssl=false accepts any certificate for every host`)
      : undefined
  }
  if (key === 'cafile' || key === 'ca') {
    return network(
      `${program} --${key} replaces the certificates it trusts, so any host can be impersonated`
    )
  }
  return undefined
}
