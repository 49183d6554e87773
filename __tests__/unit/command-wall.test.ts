/**
 * The wall around the setup and verify commands (src/wall/command-wall.ts): the bubblewrap
 * arguments built from the policy's sandbox filesystem, and, where bubblewrap runs, what the
 * wall does to a command that leaves a process behind.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {
  commandWallArgs,
  FORWARDER,
  parseLeftovers,
  PROXY_SOCKET_IN_WALL,
  shellQuote,
  wallNetwork,
  WALL_SCRIPT,
  type CommandWall,
  type WallFacts
} from '../../src/wall/command-wall.js'
import { commandNetwork, compilePolicy } from '../../src/policy/index.js'
import { findOnPath } from '../../src/session/sandbox-probe.js'
import { startCommandProxy } from '../../src/wall/command-proxy.js'
import { itWithSandbox } from '../../test-support/sandbox-suite.js'

const HOME = '/home/runner'
const WS = `${HOME}/work/repo/repo`
const TEMP = `${HOME}/work/_temp`

/** A machine of merged /usr, the runner's layout, and what `extra` adds. */
function facts(extra: Record<string, 'dir' | 'file'> = {}): WallFacts {
  const entries: Record<string, 'dir' | 'file'> = {
    '/usr': 'dir',
    '/etc': 'dir',
    '/opt': 'dir',
    '/tmp': 'dir',
    '/var/tmp': 'dir',
    [WS]: 'dir',
    [`${WS}/.github`]: 'dir',
    [`${WS}/.git/config`]: 'file',
    [TEMP]: 'dir',
    [`${HOME}/.ssh`]: 'dir',
    [`${HOME}/.npmrc`]: 'file',
    [`${HOME}/.local/bin`]: 'dir',
    '/usr/local/bin': 'dir',
    ...extra
  }
  const links: Record<string, string> = { '/bin': 'usr/bin', '/lib': 'usr/lib' }
  return {
    entry: (p) => entries[p] ?? (links[p] === undefined ? undefined : 'dir'),
    link: (p) => links[p]
  }
}

function wall(overrides: Partial<CommandWall> = {}): CommandWall {
  return {
    bwrap: '/usr/bin/bwrap',
    filesystem: {
      readwritePaths: [WS],
      readonlyPaths: ['/opt', `${WS}/.github`, `${WS}/.git/config`],
      deniedPaths: ['/tmp', '/var/tmp', TEMP, `${HOME}/.ssh`, `${HOME}/.npmrc`]
    },
    network: 'none',
    pathDirs: [],
    ...overrides
  }
}

/** The mounts as [option, ...operands] groups, after the fixed prefix. */
function mounts(args: string[]): string[][] {
  const groups: string[][] = []
  const arity: Record<string, number> = {
    '--ro-bind': 2,
    '--bind': 2,
    '--symlink': 2,
    '--tmpfs': 1,
    '--proc': 1,
    '--dev': 1,
    '--chdir': 1
  }
  for (let i = 0; i < args.length; i++) {
    const option = args[i] ?? ''
    if (option === '--') break
    const n = arity[option]
    if (n === undefined) continue
    groups.push(args.slice(i, i + 1 + n))
    i += n
  }
  return groups
}

const indexOf = (groups: string[][], ...group: string[]): number =>
  groups.findIndex((g) => g.join(' ') === group.join(' '))

describe('commandWallArgs', () => {
  it('runs the command in new namespaces that die with the wrapper, in the workspace, through the wall script', () => {
    const args = commandWallArgs(wall(), 'npm test', WS, facts())
    for (const option of [
      '--unshare-user',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-net',
      '--die-with-parent',
      '--new-session'
    ]) {
      expect(args).toContain(option)
    }
    expect(args.slice(args.indexOf('--'))).toEqual([
      '--',
      'bash',
      '-c',
      WALL_SCRIPT,
      'wall',
      'npm test'
    ])
    expect(mounts(args)).toContainEqual(['--chdir', WS])
    // an empty root, its own /proc and /dev
    expect(mounts(args).slice(0, 3)).toEqual([
      ['--tmpfs', '/'],
      ['--proc', '/proc'],
      ['--dev', '/dev']
    ])
  })

  it('binds the system read-only (symlinks as symlinks), the workspace read-write, its protected paths read-only inside it', () => {
    const groups = mounts(commandWallArgs(wall(), 'x', WS, facts()))
    expect(groups).toContainEqual(['--ro-bind', '/usr', '/usr'])
    expect(groups).toContainEqual(['--ro-bind', '/etc', '/etc'])
    expect(groups).toContainEqual(['--symlink', 'usr/bin', '/bin'])
    expect(groups).toContainEqual(['--ro-bind', '/opt', '/opt'])
    const workspace = indexOf(groups, '--bind', WS, WS)
    const github = indexOf(groups, '--ro-bind', `${WS}/.github`, `${WS}/.github`)
    const config = indexOf(groups, '--ro-bind', `${WS}/.git/config`, `${WS}/.git/config`)
    expect(workspace).toBeGreaterThan(-1)
    // parents first: the read-only paths inside the workspace win over its binding
    expect(github).toBeGreaterThan(workspace)
    expect(config).toBeGreaterThan(workspace)
    // nothing of HOME but what is bound on purpose: not HOME, not the work root
    expect(groups.flat()).not.toContain(HOME)
    expect(groups.flat()).not.toContain(`${HOME}/work`)
    // no /run (the docker socket) without network
    expect(groups.flat().some((p) => p.startsWith('/run'))).toBe(false)
  })

  it('makes a denied directory an empty private one, a denied file empty only where something above it is bound', () => {
    const groups = mounts(
      commandWallArgs(
        wall({
          filesystem: {
            readwritePaths: [WS],
            readonlyPaths: [],
            deniedPaths: ['/tmp', TEMP, `${HOME}/.npmrc`, `${WS}/.env`, '/etc/shadow']
          }
        }),
        'x',
        WS,
        facts({ [`${WS}/.env`]: 'file', '/etc/shadow': 'file' })
      )
    )
    expect(groups).toContainEqual(['--tmpfs', '/tmp'])
    expect(groups).toContainEqual(['--tmpfs', TEMP])
    // under the workspace and under /etc: bound, so covered
    expect(groups).toContainEqual(['--ro-bind', '/dev/null', `${WS}/.env`])
    expect(groups).toContainEqual(['--ro-bind', '/dev/null', '/etc/shadow'])
    expect(indexOf(groups, '--ro-bind', '/dev/null', '/etc/shadow')).toBeGreaterThan(
      indexOf(groups, '--ro-bind', '/etc', '/etc')
    )
    // HOME is not mounted: ~/.npmrc is not there at all
    expect(groups.flat()).not.toContain(`${HOME}/.npmrc`)
  })

  it('keeps a workspace under a read-only /tmp writable (a self-hosted layout)', () => {
    const ws = '/tmp/runner/work/r/r'
    const groups = mounts(
      commandWallArgs(
        wall({
          filesystem: { readwritePaths: [ws], readonlyPaths: ['/tmp'], deniedPaths: [] }
        }),
        'x',
        ws,
        facts({ [ws]: 'dir' })
      )
    )
    const tmp = indexOf(groups, '--ro-bind', '/tmp', '/tmp')
    const workspace = indexOf(groups, '--bind', ws, ws)
    expect(tmp).toBeGreaterThan(-1)
    expect(workspace).toBeGreaterThan(tmp)
  })

  it('binds what does not exist nowhere', () => {
    const groups = mounts(
      commandWallArgs(
        wall({
          filesystem: {
            readwritePaths: [WS, '/nowhere/rw'],
            readonlyPaths: ['/nowhere/ro'],
            deniedPaths: ['/nowhere/denied']
          }
        }),
        'x',
        WS,
        facts()
      )
    )
    expect(groups.flat().some((p) => p.startsWith('/nowhere'))).toBe(false)
  })

  it('binds the PATH directories that nothing shows read-only, never one in a denied place', () => {
    const groups = mounts(
      commandWallArgs(
        wall({
          pathDirs: [`${HOME}/.local/bin`, '/usr/local/bin', `${TEMP}/tool/bin`, 'relative/bin']
        }),
        'x',
        WS,
        facts({ [`${TEMP}/tool/bin`]: 'dir' })
      )
    )
    expect(groups).toContainEqual(['--ro-bind', `${HOME}/.local/bin`, `${HOME}/.local/bin`])
    // under /usr: visible already
    expect(groups.flat()).not.toContain('/usr/local/bin')
    expect(groups.flat()).not.toContain(`${TEMP}/tool/bin`)
    expect(groups.flat()).not.toContain('relative/bin')
  })

  it('keeps its own network namespace always; with a proxy socket, binds it in last and hands the forwarder its path', () => {
    const rules = { rules: [], allowLocalNetwork: false }
    const proxied = commandWallArgs(
      wall({ network: 'proxy', proxyRules: rules }),
      'npm ci',
      WS,
      facts({ '/run/systemd/resolve': 'dir' }),
      `${TEMP}/commands/net-1.sock`
    )
    expect(proxied).toContain('--unshare-net')
    // no resolver: the proxy resolves names
    expect(proxied).not.toContain('/run/systemd/resolve')
    const groups = mounts(proxied)
    expect(groups[groups.length - 2]).toEqual([
      '--ro-bind',
      `${TEMP}/commands/net-1.sock`,
      PROXY_SOCKET_IN_WALL
    ])
    expect(proxied.slice(proxied.indexOf('--'))).toEqual([
      '--',
      'bash',
      '-c',
      WALL_SCRIPT,
      'wall',
      'npm ci',
      PROXY_SOCKET_IN_WALL,
      FORWARDER
    ])
    // without a socket (its proxy did not start), or without the proxy: loopback only
    for (const args of [
      commandWallArgs(wall({ network: 'proxy', proxyRules: rules }), 'x', WS, facts()),
      commandWallArgs(wall(), 'x', WS, facts(), `${TEMP}/commands/net-1.sock`)
    ]) {
      expect(args).toContain('--unshare-net')
      expect(args.join(' ')).not.toContain(PROXY_SOCKET_IN_WALL)
      expect(args[args.length - 1]).toBe('x')
    }
    expect(wallNetwork(undefined)).toEqual({ network: 'none' })
    expect(wallNetwork(rules)).toEqual({ network: 'proxy', proxyRules: rules })
  })
})

describe('parseLeftovers and shellQuote', () => {
  it('reads the wall script’s lines, skipping what is not one', () => {
    expect(parseLeftovers('7\tsh late.sh\n9\tsleep 30\ngarbage\n\n12\t\n')).toEqual([
      { pid: 7, commandLine: 'sh late.sh' },
      { pid: 9, commandLine: 'sleep 30' },
      { pid: 12, commandLine: '' }
    ])
  })

  it('quotes a word so that bash reads it back unchanged', () => {
    for (const word of ['plain/path-1.2', "it's", 'a b', '$(rm -rf /)', '`x`', 'tab\there', '']) {
      const out = execFileSync('bash', ['-c', `printf %s ${shellQuote(word)}`], {
        encoding: 'utf8'
      })
      expect(out).toBe(word)
    }
  })
})

const MACHINE: WallFacts = {
  entry: (p) => {
    try {
      return fs.statSync(p).isDirectory() ? 'dir' : 'file'
    } catch {
      return undefined
    }
  },
  link: (p) => {
    try {
      return fs.lstatSync(p).isSymbolicLink() ? fs.readlinkSync(p) : undefined
    } catch {
      return undefined
    }
  }
}

describe('the wall on this machine', () => {
  itWithSandbox(
    'runs the command, names what it left running on fd 3 and kills it, and passes the exit code on',
    () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'command-wall-'))
      try {
        const bwrap = findOnPath('bwrap', process.env.PATH) ?? 'bwrap'
        const machine: WallFacts = {
          entry: (p) => {
            try {
              return fs.statSync(p).isDirectory() ? 'dir' : 'file'
            } catch {
              return undefined
            }
          },
          link: (p) => {
            try {
              return fs.lstatSync(p).isSymbolicLink() ? fs.readlinkSync(p) : undefined
            } catch {
              return undefined
            }
          }
        }
        const token = `wall-test-${process.pid}`
        const args = commandWallArgs(
          wall({
            bwrap,
            filesystem: { readwritePaths: [dir], readonlyPaths: [], deniedPaths: [] },
            pathDirs: []
          }),
          // the leftover has exec'd (its command line names the token) before the command ends
          `(setsid sh -c ': > started; sleep 30; : ${token}' > /dev/null 2>&1 &); echo hi; ls /proc | grep -c '^[0-9]' > seen; while [ ! -e started ]; do sleep 0.05; done; exit 3`,
          dir,
          machine
        )
        const leftovers = path.join(dir, 'leftovers')
        const fd = fs.openSync(leftovers, 'w')
        const result = spawnSync(bwrap, args, {
          stdio: ['ignore', 'pipe', 'pipe', fd],
          encoding: 'utf8'
        })
        fs.closeSync(fd)
        expect(result.stdout).toBe('hi\n')
        expect(result.status).toBe(3)
        // its own PID namespace: a handful of processes, not the machine's
        expect(Number(fs.readFileSync(path.join(dir, 'seen'), 'utf8'))).toBeLessThan(10)
        const found = parseLeftovers(fs.readFileSync(leftovers, 'utf8'))
        expect(found.map((p) => p.commandLine)).toEqual(
          expect.arrayContaining([expect.stringContaining(token)])
        )
        const alive = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        expect(alive).not.toContain(token)
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  )
})

/** The first address of this machine that is not loopback (IPv4), for a server the wall may reach. */
function hostAddress(): string {
  for (const addresses of Object.values(os.networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  }
  throw new Error('this machine has no IPv4 address besides loopback')
}

/** An http server at `host` answering `hello from <port>`; what reached it in `seen`. */
async function listen(
  host: string
): Promise<{ port: number; seen: string[]; server: http.Server }> {
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    seen.push(`${req.method ?? ''} ${req.url ?? ''}`)
    res.end(`hello from ${(server.address() as net.AddressInfo).port}`)
  })
  server.on('connection', () => seen.push('tcp'))
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return { port: (server.address() as net.AddressInfo).port, seen, server }
}

/** Runs bwrap without blocking the event loop (the proxy answers in this process). */
function run(
  bwrap: string,
  args: string[],
  leftovers: string
): Promise<{ stdout: string; stderr: string; status: number | null }> {
  return new Promise((resolve, reject) => {
    const fd = fs.openSync(leftovers, 'w')
    const child = spawn(bwrap, args, { stdio: ['ignore', 'pipe', 'pipe', fd] })
    fs.closeSync(fd)
    let stdout = ''
    let stderr = ''
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString('utf8')))
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')))
    child.on('error', reject)
    child.on('close', (status) => resolve({ stdout, stderr, status }))
  })
}

describe('the wall with the network proxy, on this machine', () => {
  itWithSandbox(
    'reaches an allowed host through the proxy, and nothing else: not another host, not the runner’s loopback; the forwarder is no leftover',
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'command-wall-net-'))
      const address = hostAddress()
      const allowed = await listen(address)
      const loopback = await listen('127.0.0.1')
      const policy = await compilePolicy(
        `version: 1\nrules:\n  - { id: test-server, decision: allow, url: ["${address}:${allowed.port}"] }\n  - { id: any-on-port, decision: allow, url: ["*:${loopback.port}"] }\n`,
        'p.yml',
        dir
      )
      const network = commandNetwork(policy)
      if (network === undefined) throw new Error('no network')
      const proxy = await startCommandProxy({ socketPath: path.join(dir, 'net.sock'), network })
      try {
        const bwrap = findOnPath('bwrap', process.env.PATH) ?? 'bwrap'
        const token = `wall-net-test-${process.pid}`
        const command = [
          'echo "proxy=$HTTP_PROXY https=$https_proxy no=$NO_PROXY"',
          // through the proxy: the allowed server
          `curl -sS --max-time 20 http://${address}:${allowed.port}/allowed; echo " curl=$?"`,
          // another host, through a tunnel: refused by the rules
          `curl -sS --max-time 20 https://example.com/ -o /dev/null; echo " curl=$?"`,
          // the runner's loopback, asked of the proxy on purpose: refused, though a rule matches
          `curl -sS --max-time 20 -x "$HTTP_PROXY" --noproxy '' -w '%{http_code}' http://127.0.0.1:${loopback.port}/; echo " curl=$?"`,
          // loopback without the proxy is the wall's own: nothing listens there
          `curl -sS --max-time 20 http://127.0.0.1:${loopback.port}/; echo " curl=$?"`,
          // without the proxy's variables, nothing at all
          `curl -sS --max-time 20 --noproxy '*' http://${address}:${allowed.port}/direct; echo " curl=$?"`,
          // the leftover has exec'd (its command line names the token) before the command ends
          `(setsid sh -c ': > ${dir}/started; sleep 30; : ${token}' > /dev/null 2>&1 &)`,
          `while [ ! -e ${dir}/started ]; do sleep 0.05; done`,
          'exit 4'
        ].join('\n')
        const args = commandWallArgs(
          wall({
            bwrap,
            filesystem: { readwritePaths: [dir], readonlyPaths: [], deniedPaths: [] },
            network: 'proxy',
            proxyRules: network,
            pathDirs: []
          }),
          command,
          dir,
          MACHINE,
          proxy.socketPath
        )
        const leftovers = path.join(dir, 'leftovers')
        const result = await run(bwrap, args, leftovers)
        const lines = result.stdout.split('\n')
        expect(lines[0]).toMatch(
          /^proxy=http:\/\/127\.0\.0\.1:\d+ https=http:\/\/127\.0\.0\.1:\d+ no=localhost,127\.0\.0\.1,::1$/
        )
        expect(lines[1]).toBe(`hello from ${allowed.port} curl=0`)
        expect(result.stderr).toContain('CONNECT tunnel failed, response 403')
        expect(lines[2]).toBe(' curl=56')
        expect(lines[3]).toContain('Refused by the policy')
        expect(lines[3]).toContain('127.0.0.1 (loopback)')
        expect(lines[4]).toBe('403 curl=0')
        expect(lines[5]).toBe(' curl=7')
        expect(lines[6]).toBe(' curl=7')
        expect(result.status).toBe(4)
        expect(allowed.seen).toEqual(['tcp', 'GET /allowed'])
        expect(loopback.seen).toEqual([])
        expect(proxy.refused()).toEqual([
          { target: 'example.com:443', reason: 'no url allow rule matches it', attempts: 1 },
          {
            target: `127.0.0.1:${loopback.port}`,
            reason: expect.stringContaining('127.0.0.1 (loopback)') as unknown,
            attempts: 1
          }
        ])
        // the leftover is named; the forwarder (perl) and its connections are not
        const found = parseLeftovers(fs.readFileSync(leftovers, 'utf8'))
        expect(found.map((p) => p.commandLine)).toEqual(
          expect.arrayContaining([expect.stringContaining(token)])
        )
        expect(found.filter((p) => p.commandLine.includes('perl'))).toEqual([])
        const alive = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        expect(alive).not.toContain(token)
        expect(alive).not.toContain(proxy.socketPath)
      } finally {
        await proxy.close()
        allowed.server.close()
        loopback.server.close()
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
  )
})
