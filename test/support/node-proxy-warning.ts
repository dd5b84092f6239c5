/**
 * What a child's stderr says, without the one warning Node 22 prints at start-up when
 * NODE_USE_ENV_PROXY=1 makes it use undici's EnvHttpProxyAgent ("[UNDICI-EHPA] … experimental",
 * and the `--trace-warnings` hint under it). Node 24 and 20 print nothing; every other line stays.
 */
export function withoutNodeProxyWarning(stderr: string): string {
  return stderr
    .replace(/^\(node:\d+\) \[UNDICI-EHPA\] Warning: [^\n]*\n/gm, '')
    .replace(/^\(Use `node --trace-warnings \.\.\.` to show where the warning was created\)\n/gm, '');
}
