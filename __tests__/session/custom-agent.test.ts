/** The `agent` input: .github/agents/NAME.agent.md read by the action, checked before the CLI starts. */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { userError } from '../../test-support/errors.js'
import { listAgents, parseAgentFile, readCustomAgent } from '../../src/session/custom-agent.js'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agents-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

function agent(file: string, text: string): void {
  const full = path.join(dir, '.github', 'agents', file)
  fs.mkdirSync(path.dirname(full), { recursive: true })
  fs.writeFileSync(full, text)
}

const error = userError

describe('readCustomAgent', () => {
  it('reads description, tools and the instructions below the front matter', () => {
    agent(
      'reviewer.agent.md',
      '---\nname: Code Reviewer\ndescription: Reviews code\ntools: [view, grep]\ntarget: github-copilot\n---\n\nYou review.\n\nBe brief.\n'
    )
    expect(readCustomAgent('reviewer', dir)).toEqual({
      name: 'reviewer',
      description: 'Reviews code',
      prompt: 'You review.\n\nBe brief.',
      tools: ['view', 'grep'],
      file: '.github/agents/reviewer.agent.md'
    })
  })

  it('takes NAME.md too, and a comma-separated tools string', () => {
    agent('docs.md', '---\ndescription: Writes docs\ntools: "view, edit"\n---\nWrite docs.')
    expect(readCustomAgent('docs', dir)).toMatchObject({
      tools: ['view', 'edit'],
      prompt: 'Write docs.'
    })
  })

  it('fails for an unknown name, listing the agents there are', () => {
    agent('reviewer.agent.md', '---\ndescription: x\n---\ny')
    agent('docs.md', '---\ndescription: x\n---\ny')
    expect(error(() => readCustomAgent('planner', dir))).toBe(
      "Input 'agent' is 'planner', but .github/agents/planner.agent.md does not exist. The agents in .github/agents/ are: docs, reviewer."
    )
    expect(listAgents(dir)).toEqual(['docs', 'reviewer'])
  })

  it('says so when there are no agents, and refuses names that are paths', () => {
    expect(error(() => readCustomAgent('x', dir))).toMatch(
      /There is no agent in \.github\/agents\//
    )
    expect(error(() => readCustomAgent('../secrets', dir))).toMatch(
      /must be the name of a file \.github\/agents\/NAME\.agent\.md, got '\.\.\/secrets'/
    )
  })
})

describe('parseAgentFile', () => {
  const FILE = '.github/agents/a.agent.md'
  it.each<[string, string, RegExp]>([
    [
      'no front matter',
      'Just text',
      /^\.github\/agents\/a\.agent\.md:1: an agent file starts with YAML front matter/
    ],
    [
      'no description',
      '---\nname: x\n---\nText',
      /a\.agent\.md:2: the front matter has no description/
    ],
    [
      'bad YAML',
      '---\ndescription: x\ntools: [a\n---\nText',
      /a\.agent\.md:\d+:\d+: the front matter is not valid YAML/
    ],
    [
      'bad tools',
      '---\ndescription: x\ntools: {a: 1}\n---\nText',
      /a\.agent\.md:3: 'tools' must be a list of tool names/
    ],
    ['no instructions', '---\ndescription: x\n---\n\n', /the agent has no instructions/]
  ])('rejects %s with the file and line', (_, text, message) => {
    expect(error(() => parseAgentFile('a', FILE, text))).toMatch(message)
  })
})
