/**
 * Precision: the allow rate of each built-in preset over the benign corpus
 * (`fixtures/benign-commands.json`, commands coding agents really ran, quoted from public
 * transcripts). A preset's rate counts the commands its stated intent covers: its own and those of
 * the presets it extends. Each denial is listed with the deciding rule. Prints one JSON line.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { compilePolicy, PRESET_NAMES, presetText } from '../src/policy/index.js'
import { loadBenignCorpus, populateWorkspace, rateOf, type PresetRate } from './benign-corpus.js'

// Not under /tmp (git-ignored .tmp/, as in policy.ts): the workspace sits where a runner's does.
const scratch = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), '.tmp')
fs.mkdirSync(scratch, { recursive: true })
const ws = fs.realpathSync(fs.mkdtempSync(path.join(scratch, 'bench-benign-')))
try {
  populateWorkspace(ws)
  const corpus = loadBenignCorpus()
  const rates: PresetRate[] = []
  for (const name of PRESET_NAMES) {
    const policy = await compilePolicy(presetText(name), `built-in:${name}`, ws)
    rates.push(rateOf(name, policy, corpus))
  }
  const sources = new Set(corpus.map((c) => c.source.replace(/\/blob\/.*$/, '')))
  console.log(JSON.stringify({ commands: corpus.length, sources: sources.size, rates }))
} finally {
  fs.rmSync(ws, { recursive: true, force: true })
}
