/**
 * URL patterns for `url` rules.
 *
 * - A bare host pattern (`docs.github.com`, `*.example.com`, `localhost:8080`) matches that host
 *   over http and https, on any path. Without a port it matches the scheme's default port only.
 * - A pattern with a scheme (`https://*.npmjs.com/**`) matches scheme, host, port and path; the
 *   path is a glob (`**` crosses `/`, `*` does not); no path or `/**` means any path.
 *
 * Requests are parsed with the WHATWG URL parser, so userinfo (`https://a.com@b.com/` is b.com),
 * letter case, default ports, percent-encoding and IP address spellings are normalized before
 * matching. Query strings and fragments are ignored.
 */
import { domainToASCII } from 'node:url'
import { compileGlob, globMatches, type Glob } from './glob.js'
import { pathMatcher } from './paths.js'
import { excerpt } from './errors.js'

export interface UrlPattern {
  source: string
  /** `http:` / `https:` ... ; undefined for a bare host pattern (http and https). */
  protocol: string | undefined
  host: Glob
  /** The port as the URL parser reports it (`''` for the default port). */
  port: string
  /** Undefined when any path matches. */
  path: ((pathname: string) => boolean) | undefined
}

export class UrlPatternError extends Error {}

const DEFAULT_PORTS: Record<string, string> = {
  'http:': '80',
  'https:': '443',
  'ws:': '80',
  'wss:': '443',
  'ftp:': '21'
}

const HOST_LABEL = /^(?:\*|[a-z0-9*](?:[a-z0-9*-]*[a-z0-9*])?)$/
const IPV6 = /^\[[0-9a-f:.]+\]$/

function normalizeHostPattern(host: string, source: string): string {
  const lower = host.toLowerCase().replace(/\.$/, '')
  const invalid = () =>
    new UrlPatternError(
      `${excerpt(source)} is not a host pattern: use a host name such as docs.github.com or *.example.com`
    )
  if (IPV6.test(lower)) return lower
  if (!lower.includes('*')) {
    // IDN and IP address spellings as the URL parser prints them
    let hostname: string
    try {
      hostname = new URL(`http://${lower}/`).hostname
    } catch {
      throw invalid()
    }
    if (!hostname.split('.').every((label) => HOST_LABEL.test(label))) throw invalid()
    return hostname
  }
  const labels = lower.split('.').map((label) => {
    if (label.includes('*')) return label
    const ascii = domainToASCII(label)
    return ascii === '' ? label : ascii
  })
  if (!labels.every((label) => HOST_LABEL.test(label))) throw invalid()
  return labels.join('.')
}

export function compileUrlPattern(source: string): UrlPattern {
  const trimmed = source.trim()
  if (trimmed.length === 0) throw new UrlPatternError('empty URL pattern')
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(trimmed)
  if (scheme === null) {
    if (/[/?#@]/.test(trimmed)) {
      throw new UrlPatternError(
        `${excerpt(source)} has a path but no scheme: write ${excerpt(`https://${trimmed}`)} or only the host`
      )
    }
    const [host, port, extra] = trimmed.split(':')
    if (extra !== undefined || (port !== undefined && !/^\d+$/.test(port))) {
      throw new UrlPatternError(`${excerpt(source)} is not host or host:port`)
    }
    return {
      source,
      protocol: undefined,
      host: compileGlob(normalizeHostPattern(host as string, source)),
      port: port ?? '',
      path: undefined
    }
  }
  const protocol = `${(scheme[1] as string).toLowerCase()}:`
  const rest = trimmed.slice(scheme[0].length)
  const slash = rest.indexOf('/')
  const authority = slash < 0 ? rest : rest.slice(0, slash)
  const pathGlob = slash < 0 ? '' : rest.slice(slash)
  if (authority.includes('@')) {
    throw new UrlPatternError(`${excerpt(source)} contains userinfo (@): patterns name hosts only`)
  }
  if (/[?#]/.test(pathGlob)) {
    throw new UrlPatternError(
      `${excerpt(source)} has a query or fragment: patterns match paths only`
    )
  }
  const portMatch = /^(.*?)(?::(\d+))?$/.exec(authority) as RegExpExecArray
  const hostPart = portMatch[1] as string
  let port = portMatch[2] ?? ''
  if (port === DEFAULT_PORTS[protocol]) port = ''
  const host = compileGlob(normalizeHostPattern(hostPart, source))
  const anyPath = pathGlob === '' || pathGlob === '/**'
  const matcher = anyPath ? undefined : pathMatcher(pathGlob, { dot: true, nonegate: true })
  return { source, protocol, host, port, path: matcher }
}

export interface ParsedUrl {
  protocol: string
  hostname: string
  port: string
  pathname: string
}

/** Parses a requested URL; undefined when it is not a URL the policy can reason about. */
export function parseRequestUrl(raw: string): ParsedUrl | undefined {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return undefined
  }
  if (url.hostname === '') return undefined
  return {
    protocol: url.protocol,
    hostname: url.hostname.replace(/\.$/, ''),
    port: url.port,
    pathname: url.pathname
  }
}

export function urlPatternMatches(pattern: UrlPattern, url: ParsedUrl): boolean {
  if (pattern.protocol === undefined) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  } else if (pattern.protocol !== url.protocol) {
    return false
  }
  if (pattern.port !== url.port) return false
  if (!globMatches(pattern.host, url.hostname)) return false
  return pattern.path === undefined || pattern.path(url.pathname)
}
