/**
 * What the GitHub account says before and after a run that uses the GitHub credential (not a
 * BYOK provider): the models it may use (`models.list`), checked against the `model` input before
 * the session is created, and its premium request quota (`account.getQuota`) for the report.
 */
import type { ModelInfo, QuotaResult, QuotaSnapshot } from '../cli/protocol.js'
import type { GitHubCallOptions, SessionApi } from '../cli/session-api.js'
import { UserError, messageOf } from '../errors.js'
import type { QuotaRecord } from '../reporting/types.js'
import type { Logger } from './log.js'

/** Most model names an error lists. */
const LISTED_MODELS = 40

/**
 * The `model` input is one of the account's models, or a user error that lists them. The ids are
 * compared as the CLI takes them (exactly); a model whose policy state is `disabled` is not one.
 */
export function checkModel(model: string, models: readonly ModelInfo[]): void {
  const usable = models.filter((m) => m.policy?.state !== 'disabled')
  if (usable.some((m) => m.id === model)) return
  const ids = usable.map((m) => m.id)
  const listed = ids.slice(0, LISTED_MODELS).join(', ')
  const more = ids.length > LISTED_MODELS ? `, and ${ids.length - LISTED_MODELS} more` : ''
  const disabled = models.some((m) => m.id === model)
    ? ' The organization has disabled it (the Copilot policy for that model).'
    : ''
  const close = ids.find((id) => id.toLowerCase() === model.toLowerCase())
  const hint = close === undefined ? '' : ` Did you mean '${close}'?`
  throw new UserError(
    ids.length === 0
      ? `Input 'model' is '${model}', but the Copilot CLI lists no model this GitHub account may use.${disabled} Check the account's Copilot plan and the organization's model policies.`
      : `Input 'model' is '${model}', which is not a model this GitHub account may use.${disabled}${hint} Set 'model' to one of: ${listed}${more}; or leave it empty for the CLI's default.`
  )
}

/**
 * Checks the `model` input against `models.list` before the session. A model the list does not
 * hold is a user error; a list the CLI cannot give (an older CLI, an outage) is only logged: the
 * session then reports a bad model itself.
 */
export async function verifyModel(
  api: SessionApi,
  model: string,
  options: GitHubCallOptions,
  log: Logger
): Promise<void> {
  let models: ModelInfo[]
  try {
    models = await api.listModels(options)
  } catch (error) {
    log.debug(`Listing the models failed (the model is not checked): ${messageOf(error)}`)
    return
  }
  checkModel(model, models)
  log.info(`Model '${model}' is available to this account`)
}

/** The snapshot type of premium requests. */
export const PREMIUM_QUOTA = 'premium_interactions'

/** The premium quota of `account.getQuota`, when the CLI gave one the report can use. */
export function premiumQuota(result: QuotaResult): QuotaRecord | undefined {
  const snapshot: QuotaSnapshot | null | undefined = result.quotaSnapshots[PREMIUM_QUOTA]
  if (!snapshot) return undefined
  const entitlement = snapshot.entitlementRequests
  const used = snapshot.usedRequests
  const unlimited = snapshot.isUnlimitedEntitlement === true || entitlement === -1
  if (!unlimited && (entitlement === undefined || used === undefined)) return undefined
  const whole = (n: number): number => Math.max(0, Math.round(n))
  const resetDate =
    snapshot.resetDate !== undefined && !Number.isNaN(Date.parse(snapshot.resetDate))
      ? new Date(snapshot.resetDate).toISOString()
      : undefined
  return {
    ...(unlimited || entitlement === undefined || used === undefined
      ? {}
      : {
          premiumRemaining: whole(entitlement - used),
          premiumEntitlement: whole(entitlement)
        }),
    premiumUsed: whole(used ?? 0),
    remainingPercentage: Math.min(
      100,
      Math.max(
        0,
        snapshot.remainingPercentage ??
          (!unlimited && entitlement !== undefined && used !== undefined && entitlement > 0
            ? ((entitlement - used) / entitlement) * 100
            : 100)
      )
    ),
    unlimited,
    overage: whole(snapshot.overage ?? 0),
    ...(resetDate === undefined ? {} : { resetDate })
  }
}
