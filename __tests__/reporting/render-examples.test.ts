import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { EXAMPLES_DIR, FIXTURES_DIR, loadFixtures, renderExamples } from '../../scripts/preview.js'
import { initBashParser } from '../../src/policy/index.js'
import { RUN_STATUSES } from '../../src/reporting/types.js'
import { emptySections, expectWellFormed } from './sample-reports.js'

describe('docs/examples', () => {
  const fixtures = loadFixtures()
  let expected = new Map<string, string>()

  beforeAll(async () => {
    await initBashParser() // as in the action: suggested shell rules depend on the parser
    expected = renderExamples(fixtures)
  })

  it('has a fixture report for every status and for a policy with errors', () => {
    const names = fixtures.map((f) => f.name).sort()
    expect(names).toEqual([...RUN_STATUSES, 'bad-policy'].sort())
    for (const { name, report } of fixtures) {
      if (name === 'bad-policy') expect(report.policy.issues?.length).toBeGreaterThan(0)
      else expect(report.status).toBe(name)
    }
  })

  it('are what `npm run preview` renders now (run it after changing the renderer)', () => {
    const committed = fs.readdirSync(EXAMPLES_DIR).filter((f) => f.endsWith('.md'))
    expect(committed.sort()).toEqual([...expected.keys()].sort())
    for (const [file, content] of expected) {
      const actual = fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')
      expect({ file, upToDate: actual === content }).toEqual({ file, upToDate: true })
    }
  })

  it('are well-formed markdown', () => {
    for (const [file, content] of expected) {
      if (file === 'README.md') continue
      expectWellFormed(content)
      expect({ file, empty: emptySections(content) }).toEqual({ file, empty: [] })
      expect(content.length).toBeLessThan(file.endsWith('.comment.md') ? 8000 : 60_000)
    }
  })
})

describe('loadFixtures', () => {
  function withFixture(json: unknown): () => unknown {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reports-'))
    const report: unknown = JSON.parse(
      fs.readFileSync(path.join(FIXTURES_DIR, 'completed.json'), 'utf8')
    )
    const edited = typeof json === 'function' ? (json as (r: unknown) => unknown)(report) : json
    fs.writeFileSync(path.join(dir, 'x.json'), JSON.stringify(edited))
    return () => loadFixtures(dir)
  }

  it('rejects a report that does not match the Report type', () => {
    const set = (key: string, value: unknown) => (r: unknown) => ({
      ...(r as Record<string, unknown>),
      [key]: value
    })
    expect(withFixture(set('status', 'succeeded'))).toThrow(/x\.json is not a Report/)
    expect(withFixture(set('tools', [{ toolCallId: 'a', name: 'bash' }]))).toThrow(/outcome/)
    expect(withFixture(set('surprise', 1))).toThrow(/surprise/)
    expect(withFixture((r: unknown) => r)()).toHaveLength(1)
  })
})
