/** Size limits of what the action publishes, in one place. Lengths are UTF-16 code units. */

/** GitHub rejects an issue or pull request comment body longer than this. */
export const GITHUB_COMMENT_LIMIT = 65_536

/** What the renderer keeps the comment under: GitHub's limit, with room for a publisher's note. */
export const COMMENT_MAX_LENGTH = GITHUB_COMMENT_LIMIT - 536

/** The job summary allows 1 MiB a step; characters can take 3 bytes (zero-width marks do). */
export const SUMMARY_MAX_LENGTH = 300_000

/** The failing command's output in the comment: its last lines, and at most this many characters. */
export const FAILING_OUTPUT_LINES = 30
export const FAILING_OUTPUT_CHARS = 2_500
