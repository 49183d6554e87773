/**
 * The CLI's outer sandbox (src/wall/cli-sandbox.ts): the bubblewrap layout built from the run's
 * facts, on a made-up file system in GitHub's runner layout.
 */
import {
  cliInstallDir,
  cliWall,
  hostPathInWall,
  visibleInWall,
  wallArguments,
  writableInWall,
  type CliWallFacts,
  type Mount,
  type PathKind
} from '../../src/wall/cli-sandbox.js'
import { wallCovers } from '../../src/wall/cli-wall.js'

const HOME = '/home/runner'
const WORK = `${HOME}/work`
const WORKSPACE = `${WORK}/repo/repo`
const TEMP = `${WORK}/_temp`
const RUN = `${TEMP}/copilot-autopilot-1-2`

/** A file system: directories, files and links (link → target). */
function facts(
  over: Partial<CliWallFacts> = {},
  extra: { dirs?: string[]; files?: string[]; links?: Record<string, string> } = {}
): CliWallFacts {
  const dirs = new Set([
    '/usr',
    '/etc',
    '/opt',
    '/sys',
    '/dev/shm',
    '/opt/hostedtoolcache',
    '/usr/local/bin',
    HOME,
    WORK,
    WORKSPACE,
    TEMP,
    RUN,
    `${RUN}/copilot-home`,
    `${HOME}/.npm/_cacache`,
    `${HOME}/.cargo/registry`,
    `${HOME}/.cargo/bin`,
    `${HOME}/.cache/copilot/pkg/linux-x64/1.0.102`,
    `${HOME}/.cache/copilot/pkg/linux-x64`,
    `${HOME}/.cache/copilot/pkg`,
    `${HOME}/.ssh`,
    `${HOME}/.config/gh`,
    `${HOME}/.gradle/caches`,
    `${WORK}/_actions/actions/checkout/v4`,
    `${TEMP}/_runner_file_commands`,
    '/opt/cli/bin',
    ...(extra.dirs ?? [])
  ])
  const files = new Set([
    `${HOME}/.npmrc`,
    `${HOME}/.gradle/gradle.properties`,
    '/opt/cli/bin/copilot',
    ...(extra.files ?? [])
  ])
  const links: Record<string, string> = {
    '/bin': 'usr/bin',
    '/lib': 'usr/lib',
    '/lib64': 'usr/lib64',
    '/sbin': 'usr/sbin',
    '/etc/resolv.conf': '../run/systemd/resolve/stub-resolv.conf',
    ...extra.links
  }
  dirs.add('/run/systemd/resolve')
  const kind = (p: string): PathKind =>
    p in links ? 'symlink' : dirs.has(p) ? 'directory' : files.has(p) ? 'file' : 'missing'
  const children = (dir: string): string[] =>
    [...dirs]
      .filter((d) => d.startsWith(`${dir}/`) && !d.slice(dir.length + 1).includes('/'))
      .map((d) => d.slice(dir.length + 1))
  return {
    workingDirectory: WORKSPACE,
    copilotHome: `${RUN}/copilot-home`,
    privateHome: `${RUN}/home`,
    executable: '/opt/cli/bin/copilot',
    env: {
      HOME,
      PATH: `/usr/local/bin:/usr/bin:${HOME}/.cargo/bin:${TEMP}/bin:/opt/cli/bin`,
      RUNNER_TEMP: TEMP,
      RUNNER_WORKSPACE: `${WORK}/repo`,
      RUNNER_TOOL_CACHE: '/opt/hostedtoolcache',
      GITHUB_ENV: `${TEMP}/_runner_file_commands/set_env_1`,
      GITHUB_ACTION_PATH: `${WORK}/_actions/octo/autopilot/v1`
    },
    kind,
    readlink: (p) => links[p],
    children,
    ...over
  }
}

const binds = (mounts: Mount[], type: Mount['type']): string[] =>
  mounts.filter((m) => m.type === type).map((m) => m.dest)

describe('cliWall', () => {
  const wall = cliWall(facts())

  it('binds the workspace, the CLI home and the private HOME read-write, last', () => {
    expect(binds(wall.mounts, 'bind')).toEqual(['/proc', HOME, WORKSPACE, `${RUN}/copilot-home`])
    expect(wall.mounts).toContainEqual({ type: 'bind', source: `${RUN}/home`, dest: HOME })
    const last = wall.mounts.slice(-2).map((m) => m.dest)
    expect(last).toEqual([WORKSPACE, `${RUN}/copilot-home`])
  })

  it('keeps system directories read-only and their links links, /tmp and /dev/shm private', () => {
    expect(binds(wall.mounts, 'ro-bind')).toEqual(
      expect.arrayContaining(['/usr', '/etc', '/opt', '/sys', '/run/systemd/resolve'])
    )
    expect(wall.mounts).toContainEqual({ type: 'symlink', target: 'usr/bin', dest: '/bin' })
    expect(binds(wall.mounts, 'tmpfs')).toEqual(['/dev/shm', '/tmp'])
    expect(binds(wall.mounts, 'dev-bind')).toEqual(['/dev'])
    // /run itself (the Docker socket) is not shown
    expect(visibleInWall(wall, '/run/docker.sock')).toBe(false)
  })

  it("binds HOME's cache directories, toolchains on PATH and the CLI's runtime, never a credential", () => {
    const ro = binds(wall.mounts, 'ro-bind')
    expect(ro).toEqual(
      expect.arrayContaining([
        `${HOME}/.npm/_cacache`,
        `${HOME}/.cargo/registry`,
        `${HOME}/.cargo/bin`,
        `${HOME}/.gradle/caches`,
        `${HOME}/.cache/copilot/pkg/linux-x64/1.0.102`
      ])
    )
    for (const secret of [
      `${HOME}/.npmrc`,
      `${HOME}/.gradle/gradle.properties`,
      `${HOME}/.ssh/id_rsa`,
      `${HOME}/.config/gh/hosts.yml`,
      `${HOME}/.bashrc`
    ]) {
      expect([secret, visibleInWall(wall, secret)]).toEqual([secret, false])
    }
    // the private HOME is where HOME's other paths lead
    expect(hostPathInWall(wall, `${HOME}/.bashrc`)).toBe(`${RUN}/home/.bashrc`)
  })

  it("hides RUNNER_TEMP (but the run's own dirs), the work root, the runner's files and the action", () => {
    for (const hidden of [
      `${TEMP}/_runner_file_commands/set_env_1`,
      `${TEMP}/other-step-file`,
      `${TEMP}/bin`,
      `${WORK}/_actions/actions/checkout/v4/dist/index.js`,
      `${WORK}/other/other/build.sh`,
      `${RUN}/home/.cache`
    ]) {
      expect([hidden, visibleInWall(wall, hidden)]).toEqual([hidden, false])
    }
    expect(visibleInWall(wall, `${RUN}/copilot-home/session-state/x/plan.md`)).toBe(true)
    // a directory on the way to a bound one exists, empty but for that way
    expect(visibleInWall(wall, TEMP)).toBe(true)
    expect(writableInWall(wall, `${WORKSPACE}/src/a.ts`)).toBe(true)
    expect(writableInWall(wall, '/usr/bin/env')).toBe(false)
    expect(writableInWall(wall, '/proc/self/environ')).toBe(false)
  })

  it("binds the CLI's installation and the tool cache, even under the work root", () => {
    expect(visibleInWall(wall, '/opt/hostedtoolcache/node')).toBe(true)
    expect(visibleInWall(wall, '/opt/cli/bin/copilot')).toBe(true)
    const selfHosted = cliWall(
      facts(
        {
          executable: `${WORK}/_tool/copilot/1.0.102/x64/node_modules/@github/copilot-linux-x64/copilot`,
          env: { ...facts().env, RUNNER_TOOL_CACHE: `${WORK}/_tool` }
        },
        { dirs: [`${WORK}/_tool`, `${WORK}/_tool/copilot/1.0.102/x64/node_modules/@github`] }
      )
    )
    expect(binds(selfHosted.mounts, 'ro-bind')).toEqual(expect.arrayContaining([`${WORK}/_tool`]))
    // after the private HOME, so that it is not covered by it
    const at = (dest: string): number => selfHosted.mounts.findIndex((m) => m.dest === dest)
    expect(at(`${WORK}/_tool`)).toBeGreaterThan(at(HOME))
  })

  it('never binds a directory that holds HOME, a hidden path or a credential, whatever PATH says', () => {
    const bad = cliWall(
      facts({
        env: { ...facts().env, PATH: `/:/home:${HOME}:${WORK}:${TEMP}:${HOME}/.ssh:/usr/bin` }
      })
    )
    const ro = binds(bad.mounts, 'ro-bind')
    for (const p of ['/', '/home', HOME, WORK, TEMP, `${HOME}/.ssh`]) expect(ro).not.toContain(p)
  })

  it('adds the paths the policy lets commands write, read-write, and MCP files read-only', () => {
    const extra = cliWall(
      facts(
        { readwrite: ['/srv/out'], readonly: ['/srv/mcp/server.mjs', HOME] },
        { dirs: ['/srv/out', '/srv/mcp'], files: ['/srv/mcp/server.mjs'] }
      )
    )
    expect(writableInWall(extra, '/srv/out/x')).toBe(true)
    expect(visibleInWall(extra, '/srv/mcp/server.mjs')).toBe(true)
    expect(visibleInWall(extra, '/srv/mcp/other')).toBe(false)
    expect(binds(extra.mounts, 'ro-bind')).not.toContain(HOME)
  })

  it('keeps a workspace under /tmp inside the private /tmp', () => {
    const tmp = cliWall(
      facts({ workingDirectory: '/tmp/ws/repo' }, { dirs: ['/tmp/ws/repo', '/tmp', '/tmp/ws'] })
    )
    expect(writableInWall(tmp, '/tmp/ws/repo/a')).toBe(true)
    expect(visibleInWall(tmp, '/tmp/other')).toBe(false)
  })
})

describe('the compile cache', () => {
  const CACHE = '/tmp/node-compile-cache'

  it("binds the host's trusted compile cache read-only inside the private /tmp, nothing else of /tmp", () => {
    const wall = cliWall(facts({ compileCache: CACHE }, { dirs: ['/tmp', CACHE] }))
    const tmp = wall.mounts.findIndex((m) => m.type === 'tmpfs' && m.dest === '/tmp')
    const cache = wall.mounts.findIndex((m) => m.dest === CACHE)
    expect(wall.mounts[cache]).toEqual({ type: 'ro-bind', source: CACHE, dest: CACHE })
    expect(cache).toBeGreaterThan(tmp) // over the tmpfs, not under it
    expect(visibleInWall(wall, `${CACHE}/v24/abc`)).toBe(true)
    expect(writableInWall(wall, `${CACHE}/v24/abc`)).toBe(false)
    expect(visibleInWall(wall, '/tmp/other')).toBe(false)
  })

  it('binds none that is missing or not given', () => {
    expect(cliWall(facts({ compileCache: CACHE })).mounts.map((m) => m.dest)).not.toContain(CACHE)
    expect(cliWall(facts()).mounts.map((m) => m.dest)).not.toContain(CACHE)
  })
})

describe('wallArguments', () => {
  it('makes a user namespace without a PID namespace, shares the network, and dies with the action', () => {
    const args = wallArguments(cliWall(facts()), WORKSPACE)
    expect(args.slice(0, 4)).toEqual([
      '--unshare-user',
      '--unshare-ipc',
      '--unshare-uts',
      '--die-with-parent'
    ])
    expect(args).not.toContain('--unshare-pid')
    expect(args).not.toContain('--unshare-net')
    expect(args).not.toContain('--unshare-all')
    expect(args.slice(-3)).toEqual(['--chdir', WORKSPACE, '--'])
    expect(args.join(' ')).toContain(`--bind ${RUN}/home ${HOME}`)
  })
})

describe('cliInstallDir', () => {
  it("is the npm scope folder of the CLI's packages, else the executable's directory", () => {
    expect(cliInstallDir('/x/node_modules/@github/copilot/npm-loader.js')).toBe(
      '/x/node_modules/@github'
    )
    expect(cliInstallDir('/opt/cli/bin/copilot')).toBe('/opt/cli/bin')
  })
})

describe('wallCovers', () => {
  it('is true when the running wall already shows what the run adds, as it must be', () => {
    const wall = cliWall(facts({ readwrite: ['/srv/out'] }, { dirs: ['/srv/out', '/srv/mcp'] }))
    expect(wallCovers(wall, { readwrite: ['/srv/out'] })).toBe(true)
    expect(wallCovers(wall, { readwrite: ['/srv/mcp'] })).toBe(false)
    expect(wallCovers(wall, { readonly: ['/usr/bin/node'] })).toBe(true)
    expect(wallCovers(wall, { readonly: [`${TEMP}/mcp.json`] })).toBe(false)
    expect(wallCovers(wall, {})).toBe(true)
  })
})
