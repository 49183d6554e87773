/**
 * Auth preflight: ask the CLI whether the session is signed in before any prompt is sent, so a
 * missing or rejected credential fails fast with the fix instead of an opaque error mid-run.
 */
import type { AuthStatus, SessionApi } from '../cli/session-api.js'
import { UserError, messageOf } from '../errors.js'

export const AUTH_FIX =
  'Give the action a credential Copilot accepts: grant the workflow \'permissions: copilot-requests: write\' (and have an organization owner enable the policy "Allow use of Copilot CLI billed to the organization"), or set \'copilot-token\' to a fine-grained personal access token with the "Copilot Requests" permission (or a GitHub App installation token with copilot_requests: write).'

/** Returns the signed-in login; throws a UserError naming the fix when not signed in. */
export async function checkAuth(api: SessionApi, sessionId: string): Promise<string | undefined> {
  let status: AuthStatus
  try {
    status = await api.authStatus(sessionId)
  } catch (error) {
    throw new UserError(
      `The Copilot CLI could not check its credential (${messageOf(error)}). ${AUTH_FIX}`
    )
  }
  if (!status.isAuthenticated) {
    throw new UserError(
      `The Copilot CLI is not signed in with the credential it was given (${status.statusMessage ?? 'not authenticated'}). ${AUTH_FIX}`
    )
  }
  return status.login
}
