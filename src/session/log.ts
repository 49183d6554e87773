/** Where the session's driver writes its log (core's functions in the action, a list in tests). */
export interface Logger {
  info(line: string): void
  warning(line: string): void
  debug(line: string): void
  /** A collapsible group in the log. */
  group<T>(name: string, work: () => Promise<T>): Promise<T>
}
