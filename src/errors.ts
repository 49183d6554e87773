/**
 * One error type for "the user must fix something": bad input, a bad policy, a missing permission
 * or credential. Its message says what is wrong and how to fix it. Every other error is a bug or an
 * outage and is reported as such.
 */
export class UserError extends Error {
  override readonly name = 'UserError'
}

/** The message of anything thrown, without a stack. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}
