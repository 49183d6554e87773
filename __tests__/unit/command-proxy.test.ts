/**
 * The network of the setup and verify commands (issue 28): the url rules' decision for a host and
 * port (src/policy/network.ts), which addresses are local (src/wall/local-addresses.ts), and the
 * proxy itself (src/wall/command-proxy.ts) against real sockets: upstream servers on 127.0.0.1,
 * clients talking to the proxy's unix socket as the wall's forwarder does.
 */
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {
  commandNetwork,
  compilePolicy,
  decideConnection,
  type CommandNetwork
} from '../../src/policy/index.js'
import {
  connectTarget,
  startCommandProxy,
  type CommandProxy,
  type CommandProxyOptions,
  type RefusedConnection
} from '../../src/wall/command-proxy.js'
import { localRange } from '../../src/wall/local-addresses.js'

let dir: string
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'command-proxy-'))
})
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

async function networkOf(rules: string): Promise<CommandNetwork | undefined> {
  return commandNetwork(await compilePolicy(`version: 1\nrules:\n${rules}`, 'p.yml', dir))
}

async function network(rules: string): Promise<CommandNetwork> {
  const found = await networkOf(rules)
  if (found === undefined) throw new Error('no network')
  return found
}

describe('the url rules for a connection', () => {
  it('no url allow rule: no network at all (ask and deny rules open nothing)', async () => {
    expect(await networkOf('  - { decision: allow, shell: ["npm test"] }\n')).toBeUndefined()
    expect(
      await networkOf(
        '  - { decision: ask, url: ["example.com"] }\n  - { decision: deny, url: ["*"] }\n'
      )
    ).toBeUndefined()
  })

  it('an exact host on its default ports; a wildcard for its subdomains only; ports as written', async () => {
    const n = await network(
      '  - { id: npm, decision: allow, url: ["registry.npmjs.org", "*.example.com", "localhost:8080", "https://api.example.org"] }\n'
    )
    const decide = (host: string, port: number, url?: string) =>
      decideConnection(n, { host, port, ...(url === undefined ? {} : { url }) })
    expect(decide('registry.npmjs.org', 443)).toMatchObject({ allowed: true, rule: 'npm' })
    expect(decide('REGISTRY.npmjs.org.', 443)).toMatchObject({
      allowed: true,
      hostname: 'registry.npmjs.org'
    })
    expect(decide('registry.npmjs.org', 80)).toMatchObject({ allowed: true })
    expect(decide('registry.npmjs.org', 22)).toMatchObject({
      allowed: false,
      reason: 'no url allow rule matches it'
    })
    expect(decide('registry.npmjs.org.evil.example', 443)).toMatchObject({ allowed: false })
    expect(decide('a.b.example.com', 443)).toMatchObject({ allowed: true })
    expect(decide('example.com', 443)).toMatchObject({ allowed: false })
    expect(decide('localhost', 8080)).toMatchObject({ allowed: true, namesAddress: true })
    expect(decide('localhost', 443)).toMatchObject({ allowed: false })
    // a scheme's port: https is 443 only, through a tunnel and as a plain-http URL
    expect(decide('api.example.org', 443)).toMatchObject({ allowed: true, namesAddress: false })
    expect(decide('api.example.org', 80)).toMatchObject({ allowed: false })
    expect(decide('api.example.org', 80, 'http://api.example.org/x')).toMatchObject({
      allowed: false
    })
    expect(decide('registry.npmjs.org', 80, 'http://registry.npmjs.org/yaml')).toMatchObject({
      allowed: true
    })
    // a URL for another host than the one asked for is no URL of this request
    expect(decide('registry.npmjs.org', 80, 'http://evil.example/')).toMatchObject({
      allowed: false
    })
  })

  it('deny beats allow, with wildcards; ask refuses; a path-restricted deny refuses the whole tunnel', async () => {
    const n = await network(
      [
        '  - { id: all, decision: allow, url: ["*", "*:8443"] }',
        '  - { id: no-evil, decision: deny, url: ["*.evil.example", "evil.example"] }',
        '  - { id: ask-gists, decision: ask, url: ["gist.github.com"] }',
        '  - { id: no-archive, decision: deny, url: ["https://github.com/*/*/archive/**"] }'
      ].join('\n') + '\n'
    )
    expect(decideConnection(n, { host: 'x.evil.example', port: 443 })).toMatchObject({
      allowed: false,
      reason: 'the url rule `no-evil` denies it'
    })
    // a deny rule without a port holds for every port, as an allow rule's wildcard port does not
    expect(decideConnection(n, { host: 'evil.example', port: 8443 })).toMatchObject({
      allowed: false,
      reason: 'the url rule `no-evil` denies it'
    })
    expect(
      decideConnection(n, { host: 'evil.example', port: 8443, url: 'http://evil.example:8443/' })
    ).toMatchObject({ allowed: false })
    expect(decideConnection(n, { host: 'good.example', port: 8443 })).toMatchObject({
      allowed: true
    })
    expect(decideConnection(n, { host: 'gist.github.com', port: 443 })).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('asks about it') as unknown
    })
    expect(decideConnection(n, { host: 'github.com', port: 443 })).toMatchObject({
      allowed: false,
      reason: 'the url rule `no-archive` denies it'
    })
    expect(
      decideConnection(n, { host: 'github.com', port: 80, url: 'http://github.com/a/b/x' })
    ).toMatchObject({ allowed: true, rule: 'all' })
    expect(decideConnection(n, { host: 'pypi.org', port: 443 })).toMatchObject({
      allowed: true,
      rule: 'all',
      namesAddress: false
    })
  })

  it('IP literals in any spelling are the address the URL parser prints; only a literal rule names one', async () => {
    const n = await network(
      '  - { id: local, decision: allow, url: ["127.0.0.1:9999", "http://[::1]:9999"] }\n  - { id: any, decision: allow, url: ["*:7777"] }\n'
    )
    expect(decideConnection(n, { host: '2130706433', port: 9999 })).toMatchObject({
      allowed: true,
      hostname: '127.0.0.1',
      namesAddress: true
    })
    expect(decideConnection(n, { host: '[0:0::1]', port: 9999 })).toMatchObject({
      allowed: true,
      hostname: '[::1]',
      namesAddress: true
    })
    expect(decideConnection(n, { host: '127.0.0.1', port: 7777 })).toMatchObject({
      allowed: true,
      rule: 'any',
      namesAddress: false
    })
    expect(decideConnection(n, { host: 'a@b', port: 9999 })).toMatchObject({ allowed: false })
  })
})

describe('local addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.8.8', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.169.254', 'cloud metadata'],
    ['169.254.10.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.1.1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['192.0.2.2', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['64:ff9b::a00:1', 'private']
  ])('%s is %s', (address, range) => {
    expect(localRange(address)).toBe(range)
  })

  it.each(['8.8.8.8', '140.82.112.3', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(localRange(address)).toBeUndefined()
    }
  )
})

describe('connectTarget', () => {
  it('reads host:port, brackets for IPv6, nothing else', () => {
    expect(connectTarget('example.com:443')).toEqual({ host: 'example.com', port: 443 })
    expect(connectTarget('[::1]:8080')).toEqual({ host: '[::1]', port: 8080 })
    expect(connectTarget('example.com')).toBeUndefined()
    expect(connectTarget('a@example.com:443')).toBeUndefined()
    expect(connectTarget('http://example.com:443')).toBeUndefined()
  })
})

// ---------------------------------------------------------------------------------------------
// The proxy, against real sockets

interface Upstream {
  port: number
  /** What reached it: `METHOD path host-header` for http, `tcp` for a raw connection. */
  seen: string[]
  close(): Promise<void>
}

/** An http server on 127.0.0.1 that answers `hello from <port>` and notes what reached it. */
async function upstream(): Promise<Upstream> {
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    seen.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers.host ?? ''}`)
    res.end(`hello from ${(server.address() as net.AddressInfo).port}`)
  })
  server.on('connection', () => seen.push('tcp'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

let counter = 0
const proxies: CommandProxy[] = []
const upstreams: Upstream[] = []
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.close()
  for (const u of upstreams.splice(0)) await u.close()
})

async function server(): Promise<Upstream> {
  const u = await upstream()
  upstreams.push(u)
  return u
}

async function proxy(
  rules: string,
  extra: Partial<CommandProxyOptions> = {}
): Promise<{ proxy: CommandProxy; first: RefusedConnection[] }> {
  const first: RefusedConnection[] = []
  const started = await startCommandProxy({
    socketPath: path.join(dir, `p${++counter}.sock`),
    network: await network(rules),
    onRefused: (r) => first.push(r),
    ...extra
  })
  proxies.push(started)
  return { proxy: started, first }
}

/** Sends `request` on a new connection to the proxy's socket; resolves with all it answered. */
function exchange(p: CommandProxy, request: string, then?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(p.socketPath)
    let answer = ''
    socket.on('data', (chunk) => {
      answer += chunk.toString('utf8')
      // a tunnel: once established, send what goes through it
      if (then !== undefined && answer.startsWith('HTTP/1.1 200') && answer.endsWith('\r\n\r\n')) {
        socket.write(then)
        then = undefined
      }
    })
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
    socket.write(request)
  })
}

const get = (host: string, port: number, pathname = '/'): string =>
  `GET ${pathname} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: close\r\n\r\n`

describe('the proxy', () => {
  it('tunnels a CONNECT to an allowed address, and forwards plain http with the URL’s host as Host', async () => {
    const up = await server()
    const { proxy: p, first } = await proxy(
      `  - { id: local, decision: allow, url: ["127.0.0.1:${up.port}"] }\n`
    )
    const tunnelled = await exchange(
      p,
      `CONNECT 127.0.0.1:${up.port} HTTP/1.1\r\nHost: 127.0.0.1:${up.port}\r\n\r\n`,
      get('127.0.0.1', up.port, '/through')
    )
    expect(tunnelled).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/)
    expect(tunnelled).toContain(`hello from ${up.port}`)
    // a Host header naming another host changes nothing: the URL decides where it goes
    const plain = await exchange(
      p,
      `GET http://127.0.0.1:${up.port}/plain?q=1 HTTP/1.1\r\nHost: evil.example\r\nProxy-Connection: keep-alive\r\nConnection: close\r\n\r\n`
    )
    expect(plain).toMatch(/^HTTP\/1\.1 200 OK/)
    expect(plain).toContain(`hello from ${up.port}`)
    expect(up.seen).toContain(`GET /through 127.0.0.1:${up.port}`)
    expect(up.seen).toContain(`GET /plain?q=1 127.0.0.1:${up.port}`)
    expect(first).toEqual([])
    expect(p.refused()).toEqual([])
  })

  it('refuses another port of the allowed address, and counts each refusal once per target', async () => {
    const up = await server()
    const other = await server()
    const { proxy: p, first } = await proxy(
      `  - { id: local, decision: allow, url: ["127.0.0.1:${up.port}"] }\n`
    )
    for (let i = 0; i < 3; i++) {
      const answer = await exchange(p, `CONNECT 127.0.0.1:${other.port} HTTP/1.1\r\n\r\n`)
      expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden/)
      expect(answer).toContain('no url allow rule matches it')
    }
    expect(other.seen).toEqual([])
    expect(first).toEqual([
      { target: `127.0.0.1:${other.port}`, reason: 'no url allow rule matches it', attempts: 1 }
    ])
    expect(p.refused()).toEqual([
      { target: `127.0.0.1:${other.port}`, reason: 'no url allow rule matches it', attempts: 3 }
    ])
  })

  it('refuses loopback, metadata and private addresses a wildcard rule matches, without connecting', async () => {
    const up = await server()
    const { proxy: p } = await proxy(
      '  - { id: any, decision: allow, url: ["*", "*:' + up.port + '", "http://*:80"] }\n'
    )
    for (const target of [
      `127.0.0.1:${up.port}`,
      `[::ffff:127.0.0.1]:${up.port}`,
      `2130706433:${up.port}`,
      '169.254.169.254:80',
      '10.0.0.1:443',
      '[fe80::1]:443'
    ]) {
      const answer = await exchange(p, `CONNECT ${target} HTTP/1.1\r\n\r\n`)
      expect({ target, answer: answer.split('\r\n')[0] }).toEqual({
        target,
        answer: 'HTTP/1.1 403 Forbidden'
      })
    }
    const plain = await exchange(
      p,
      'GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: 169.254.169.254\r\n\r\n'
    )
    expect(plain).toMatch(/^HTTP\/1\.1 403/)
    expect(plain).toContain('cloud metadata')
    expect(up.seen).toEqual([])
    expect(p.refused().map((r) => r.target)).toEqual([
      `127.0.0.1:${up.port}`,
      `[::ffff:7f00:1]:${up.port}`,
      '169.254.169.254:80',
      '10.0.0.1:443',
      '[fe80::1]:443'
    ])
    expect(p.refused()[0]?.reason).toContain('127.0.0.1 (loopback)')
  })

  it('resolves a name itself: a wildcard host that resolves to loopback is refused, unless the network allows the local one', async () => {
    const up = await server()
    const rules = `  - { id: registry, decision: allow, url: ["*.registry.test:${up.port}"] }\n  - { id: no-bad, decision: deny, url: ["bad.registry.test"] }\n`
    const lookups: string[] = []
    const lookup = (hostname: string): Promise<string[]> => {
      lookups.push(hostname)
      return Promise.resolve(['127.0.0.1'])
    }
    const refused = await proxy(rules, { lookup })
    expect(
      await exchange(refused.proxy, `CONNECT npm.registry.test:${up.port} HTTP/1.1\r\n\r\n`)
    ).toContain('it resolves to 127.0.0.1 (loopback)')
    expect(up.seen).toEqual([])

    const local = await proxy(rules, {
      lookup,
      network: { ...(await network(rules)), allowLocalNetwork: true }
    })
    const answer = await exchange(
      local.proxy,
      `CONNECT npm.registry.test:${up.port} HTTP/1.1\r\n\r\n`,
      get('npm.registry.test', up.port)
    )
    expect(answer).toContain(`hello from ${up.port}`)
    // a denied host is refused before any name is looked up
    expect(
      await exchange(local.proxy, `CONNECT bad.registry.test:${up.port} HTTP/1.1\r\n\r\n`)
    ).toContain('the url rule `no-bad` denies it')
    expect(lookups).toEqual(['npm.registry.test', 'npm.registry.test'])
  })

  it('answers what is not a proxy request, and ends open tunnels when closed', async () => {
    const up = await server()
    const { proxy: p } = await proxy(`  - { decision: allow, url: ["127.0.0.1:${up.port}"] }\n`)
    expect(await exchange(p, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/)
    expect(await exchange(p, 'GET https://127.0.0.1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 400/
    )
    expect(await exchange(p, 'CONNECT nohost HTTP/1.1\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/)
    // an idle tunnel ends with the proxy
    const socket = net.connect(p.socketPath)
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()))
    await new Promise<void>((resolve) => {
      socket.once('data', () => resolve())
      socket.write(`CONNECT 127.0.0.1:${up.port} HTTP/1.1\r\n\r\n`)
    })
    await p.close()
    proxies.splice(proxies.indexOf(p), 1)
    await ended
    expect(fs.existsSync(p.socketPath)).toBe(false)
  })

  it('keeps at most 20 refused targets, and counts the rest', async () => {
    const { proxy: p, first } = await proxy('  - { decision: allow, url: ["example.com"] }\n')
    for (let i = 0; i < 25; i++) {
      await exchange(p, `CONNECT h${i}.example.net:443 HTTP/1.1\r\n\r\n`)
    }
    expect(p.refused()).toHaveLength(20)
    expect(first).toHaveLength(20)
    expect(p.refusedBeyond()).toBe(5)
  })

  it('will not listen at a socket path longer than a unix socket can be', async () => {
    await expect(
      startCommandProxy({
        socketPath: path.join(dir, 'x'.repeat(120)),
        network: await network('  - { decision: allow, url: ["example.com"] }\n')
      })
    ).rejects.toThrow('longer than 107 bytes')
  })
})
