// Which of the OS sandbox's programs are on PATH (bwrap; slirp4netns and iptables for its network).
import fs from 'node:fs'
import path from 'node:path'

const TOOLS = ['bwrap', 'slirp4netns', 'iptables']

function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK)
      return true
    } catch {
      // not here
    }
  }
  return false
}

export function sandboxTools() {
  const missing = TOOLS.filter((name) => !onPath(name))
  return { missing, bwrap: !missing.includes('bwrap'), network: missing.length === 0 }
}
