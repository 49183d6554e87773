/** The approvals adapter: the policy's ask rules answered by people on the PR or issue. */
import { createApprovals } from '../github/approvals.js'
import { log } from '../log.js'
import type { Target } from '../reporting/target.js'
import type { Asker } from '../session/permission-requests.js'
import type { Settings } from '../settings.js'
import { githubClient } from './trigger-gate.js'

/** Who answers the policy's ask rules: the maintainers of the PR or issue, when there is one. */
export function askerFor(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  target: Target,
  clean: (text: string) => string
): { asker?: Asker; noAskerReason?: string } {
  if (target.kind === 'none') return { noAskerReason: `there is nowhere to ask: ${target.reason}` }
  if (!settings.githubToken) {
    return { noAskerReason: "there is nowhere to ask: the input 'github-token' is empty" }
  }
  const approvals = createApprovals({
    client: githubClient(settings.githubToken, env),
    target: { owner: target.owner, repo: target.repo, number: target.number },
    timeoutMs: settings.approvalTimeoutMs,
    pollMs: settings.approvalPollMs,
    log
  })
  return {
    asker: {
      ask: async (question, signal) => {
        // The question is posted on the PR for anyone to read: never a secret in it.
        const answer = await approvals.ask(
          {
            id: question.id,
            kind: clean(question.kind),
            subject: clean(question.subject),
            rule: clean(question.rule),
            ...(question.reason === undefined ? {} : { reason: clean(question.reason) })
          },
          signal
        )
        const url = 'commentUrl' in answer ? (answer.commentUrl ?? answer.askUrl) : undefined
        return {
          verdict: answer.verdict,
          askedAt: answer.askedAt,
          at: answer.at,
          ...('by' in answer ? { by: answer.by } : {}),
          ...('reason' in answer && answer.reason !== undefined ? { reason: answer.reason } : {}),
          ...(url ? { url } : 'askUrl' in answer && answer.askUrl ? { url: answer.askUrl } : {})
        }
      }
    }
  }
}
