/** Commands report their exit code here instead of calling process.exit, so streams flush first. */
export interface CommandResult {
  code: number;
}
