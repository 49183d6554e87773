/** The message of the UserError `fn` throws; fails the test when it throws nothing or another error. */
import { UserError } from '../src/errors.js'

export function userError(fn: () => unknown): string {
  try {
    fn()
  } catch (e) {
    if (!(e instanceof UserError)) throw e
    return e.message
  }
  throw new Error('expected a UserError')
}
