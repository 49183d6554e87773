/**
 * Event folding: a stream of 1M session events through the real fold (src/session/fold.ts). The
 * stream replays a recorded CLI 1.0.102 session (bench/fixtures/session-events.jsonl, every
 * event type the CLI sent, ephemeral ones included) turn after turn with fresh ids, tool call
 * ids and timestamps, each recorded message delta split into DELTAS_PER_MESSAGE chunks the way
 * a streaming model sends them. Events are generated lazily in batches of BATCH (never the
 * whole stream); only the onEvent calls are timed. RSS is sampled after every batch.
 * Run with --expose-gc. Prints one JSON line.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { SessionEvent } from '../src/cli/protocol.js'
import { toReport } from '../src/reporting/report.js'
import { createState, fold as foldInput } from '../src/session/fold.js'

const TOTAL = Number(process.env.BENCH_FOLD_EVENTS ?? 1_000_000)
const DELTAS_PER_MESSAGE = 120
const BATCH = 1000

const fixture = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'fixtures',
  'session-events.jsonl'
)
const lines = fs
  .readFileSync(fixture, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
const typeOf = (line: string): string => (JSON.parse(line) as SessionEvent).type
const first = lines.findIndex((l) => typeOf(l) === 'assistant.turn_start')
const last = lines.findLastIndex((l) => typeOf(l) === 'assistant.turn_end')
const preamble = lines.slice(0, first)
const turns = lines.slice(first, last + 1)
const epilogue = lines.slice(last + 1)

/** The stream: preamble, the recorded turns over and over, the epilogue as the last events. */
function* stream(total: number): Generator<SessionEvent> {
  let n = 0
  let clock = Date.parse('2026-11-22T00:00:00Z')
  const stamp = (event: SessionEvent): SessionEvent => {
    n++
    clock += 1
    event.id = `e${n}`
    event.parentId = `e${n - 1}`
    event.timestamp = new Date(clock).toISOString()
    return event
  }
  const body = total - preamble.length - epilogue.length
  for (const line of preamble) yield stamp(JSON.parse(line) as SessionEvent)
  for (let cycle = 0; n < preamble.length + body; cycle++) {
    for (const line of turns) {
      if (n >= preamble.length + body) break
      // tool call ids are unique per cycle, as in a long session
      const event = JSON.parse(line.replaceAll('"call_', `"c${cycle}_call_`)) as SessionEvent
      if (event.type !== 'assistant.message_delta') {
        yield stamp(event)
        continue
      }
      const { messageId } = event.data as { messageId: string }
      for (let i = 0; i < DELTAS_PER_MESSAGE && n < preamble.length + body; i++) {
        const deltaContent = ` token${(cycle + i) % 97}`
        yield stamp({ type: event.type, ephemeral: true, data: { messageId, deltaContent } })
        if (n >= preamble.length + body) break
        yield stamp({
          type: 'assistant.streaming_delta',
          ephemeral: true,
          data: { totalResponseSizeBytes: (i + 1) * deltaContent.length }
        })
      }
    }
  }
  for (const line of epilogue) yield stamp(JSON.parse(line) as SessionEvent)
}

const gc = (globalThis as { gc?: () => void }).gc
gc?.()
const mb = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10
const heapStart = process.memoryUsage().heapUsed
const rssStart = process.memoryUsage.rss()
const state = createState({
  startedAt: new Date().toISOString(),
  model: null,
  policySource: '.github/copilot-policy.yml',
  workingDirectory: '/home/runner/work/repo/repo',
  secrets: ['bench-secret-value']
})
let rssPeak = rssStart
let rssAtHalf = 0
let count = 0
let deltas = 0
let foldNs = 0n
const batch: SessionEvent[] = []
const fold = (): void => {
  const start = process.hrtime.bigint()
  for (const event of batch) foldInput(state, { type: 'event', event })
  foldNs += process.hrtime.bigint() - start
  count += batch.length
  batch.length = 0
  const rss = process.memoryUsage.rss()
  if (rss > rssPeak) rssPeak = rss
  if (rssAtHalf === 0 && count >= TOTAL / 2) rssAtHalf = rss
}
const wallStart = process.hrtime.bigint()
for (const event of stream(TOTAL)) {
  if (event.type.endsWith('_delta')) deltas++
  batch.push(event)
  if (batch.length === BATCH) fold()
}
fold()
const wallNs = process.hrtime.bigint() - wallStart
const rssEnd = process.memoryUsage.rss()
const report = toReport(state, {
  endedAt: new Date().toISOString(),
  settled: { status: 'completed' }
})
gc?.()
console.log(
  JSON.stringify({
    events: count,
    deltaShare: Math.round((deltas / count) * 1000) / 1000,
    eventsPerSec: Math.round(count / (Number(foldNs) / 1e9)),
    withGenerationPerSec: Math.round(count / (Number(wallNs) / 1e9)),
    rssStartMB: mb(rssStart),
    rssAtHalfMB: mb(rssAtHalf),
    rssPeakMB: mb(rssPeak),
    rssEndMB: mb(rssEnd),
    heapRetainedMB: mb(process.memoryUsage().heapUsed - heapStart),
    folded: {
      toolCalls: Object.values(report.toolStats ?? {}).reduce((sum, s) => sum + s.calls, 0),
      toolRecords: report.tools.length,
      usageRequests: Object.values(report.metrics.models).reduce((s, m) => s + m.requests, 0),
      summary: report.summary
    }
  })
)
