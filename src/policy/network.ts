/**
 * The network of the setup and verify commands, as the policy's url rules decide it: which host
 * and port a command may connect to through the action's proxy (wall/command-proxy.ts).
 *
 * The same rules and the same matching as a `url` request (url.ts): a deny rule that matches wins,
 * then an ask rule (nobody can be asked about a program's connection, so it is refused), then an
 * allow rule; a host no rule matches is refused, whatever the policy's `default` (the network is
 * what the url allow rules name, as for the agent's commands: sandbox.ts). Unlike the CLI's
 * sandbox, which takes a list of exact hosts, a wildcard (`*.npmjs.org`) counts here.
 *
 * What a connection shows: a plain-http request its whole URL (matched as a `url` request is); a
 * tunnel (`CONNECT host:port`, for https and anything else) only its host and port. Through a
 * tunnel a rule's scheme counts by its port (https: 443, http: 80, a bare host: either) and its
 * path cannot: an allow rule for `https://github.com/org/**` lets a tunnel to github.com:443
 * through (as the CLI's sandbox lets the host through), and a deny or ask rule with a path refuses
 * every tunnel to its host (refused rather than guessed). A deny or ask rule without a port holds
 * for every port of its hosts (as the CLI's `blockedHosts` do), an allow rule only for the default
 * ones (`localhost:8080` names another).
 *
 * Pure: whether a name resolves to a local address is the proxy's to find out.
 */
import { globMatches, literalOf } from './glob.js'
import type { SandboxPolicy } from './sandbox.js'
import type { Verdict } from './types.js'
import { parseRequestUrl, urlPatternMatches, type UrlPattern } from './url.js'

/** One url rule, as the proxy needs it. */
export interface NetworkRule {
  id: string
  decision: Verdict
  urls: readonly UrlPattern[]
}

/** What the setup and verify commands may connect to. */
export interface CommandNetwork {
  /** The policy's url rules, in order. */
  rules: readonly NetworkRule[]
  /**
   * Whether a host may resolve to a loopback, link-local or private address (the CLI's
   * `allowLocalNetwork`; the policy never sets it). Without it only a rule that names the address
   * itself (`127.0.0.1:8080`, `localhost:3000`) reaches one.
   */
  allowLocalNetwork: boolean
}

/** A connection a command asks the proxy for. */
export interface ConnectionRequest {
  /** The host as the client named it (a name, an IPv4 address, or `[v6]`). */
  host: string
  port: number
  /** The request's URL, when the proxy sees it (plain http); absent for a tunnel. */
  url?: string
}

export type ConnectionDecision =
  | {
      allowed: true
      /** The host, normalized as the URL parser prints it. */
      hostname: string
      /** The allow rule's id. */
      rule: string
      /**
       * The rule names this very host as an address (`127.0.0.1`, `[::1]`, `localhost`): it may
       * reach a local address.
       */
      namesAddress: boolean
    }
  | { allowed: false; hostname: string; reason: string }

/**
 * The setup and verify commands' network under `policy`, or undefined when no url rule allows a
 * host (then they have none at all, and no proxy runs).
 */
export function commandNetwork(policy: SandboxPolicy): CommandNetwork | undefined {
  const rules: NetworkRule[] = []
  for (const rule of policy.rules) {
    if (rule.matcher !== 'url') continue
    rules.push({ id: rule.id, decision: rule.decision, urls: rule.urls })
  }
  if (!rules.some((r) => r.decision === 'allow' && r.urls.length > 0)) return undefined
  return { rules, allowLocalNetwork: false }
}

/** The ports a pattern without a port stands for, through a tunnel, by its scheme. */
const TUNNEL_PORTS: Record<string, readonly number[]> = {
  'http:': [80],
  'https:': [443],
  'ws:': [80],
  'wss:': [443],
  'ftp:': [21]
}

function tunnelMatches(
  pattern: UrlPattern,
  hostname: string,
  port: number,
  anyPort: boolean
): boolean {
  if (!globMatches(pattern.host, hostname)) return false
  if (pattern.port !== '') return pattern.port === String(port)
  if (anyPort) return true
  const ports = pattern.protocol === undefined ? [80, 443] : (TUNNEL_PORTS[pattern.protocol] ?? [])
  return ports.includes(port)
}

/** The hostname as the URL parser prints it (IDN, IP spellings), or undefined. */
export function normalizeHost(host: string): string | undefined {
  if (host === '' || /[/?#@\\\s]/.test(host)) return undefined
  try {
    const hostname = new URL(`http://${host}/`).hostname.replace(/\.$/, '')
    return hostname === '' ? undefined : hostname
  } catch {
    return undefined
  }
}

const LOCAL_NAMES = new Set(['localhost'])

/** Whether `hostname` is an IP address (v4, or v6 in brackets) as the URL parser prints one. */
export function isAddress(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || /^\[[0-9a-f:.]+\]$/.test(hostname)
}

/** Decides one connection against the url rules: deny, then ask, then allow; else refused. */
export function decideConnection(
  network: CommandNetwork,
  request: ConnectionRequest
): ConnectionDecision {
  const hostname = normalizeHost(request.host)
  if (hostname === undefined) {
    return { allowed: false, hostname: request.host, reason: 'not a host name' }
  }
  if (!Number.isInteger(request.port) || request.port < 1 || request.port > 65535) {
    return { allowed: false, hostname, reason: 'not a port' }
  }
  // deny and ask rules without a port hold for every port
  let matches: (pattern: UrlPattern, anyPort: boolean) => boolean
  if (request.url !== undefined) {
    const url = parseRequestUrl(request.url)
    if (url === undefined || url.hostname !== hostname) {
      return { allowed: false, hostname, reason: 'not a URL the policy can read' }
    }
    matches = (pattern, anyPort) =>
      urlPatternMatches(
        anyPort && pattern.port === '' ? { ...pattern, port: url.port } : pattern,
        url
      )
  } else {
    matches = (pattern, anyPort) => tunnelMatches(pattern, hostname, request.port, anyPort)
  }
  const matching = (decision: Verdict): NetworkRule | undefined =>
    network.rules.find(
      (r) => r.decision === decision && r.urls.some((u) => matches(u, decision !== 'allow'))
    )
  const denied = matching('deny')
  if (denied !== undefined) {
    return { allowed: false, hostname, reason: `the url rule \`${denied.id}\` denies it` }
  }
  const asked = matching('ask')
  if (asked !== undefined) {
    return {
      allowed: false,
      hostname,
      reason: `the url rule \`${asked.id}\` asks about it, and nobody can be asked about a command's connection`
    }
  }
  const allowed = matching('allow')
  if (allowed === undefined) {
    return { allowed: false, hostname, reason: 'no url allow rule matches it' }
  }
  const namesAddress =
    (isAddress(hostname) || LOCAL_NAMES.has(hostname)) &&
    allowed.urls.some((u) => matches(u, false) && literalOf(u.host) === hostname)
  return { allowed: true, hostname, rule: allowed.id, namesAddress }
}
