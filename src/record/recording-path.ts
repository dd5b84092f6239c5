import { resolve } from 'node:path';

/** `recordings/<UTC timestamp>.db` under the working directory: where a recording goes unless --out says. */
export function defaultRecordingPath(now = new Date()): string {
  const stamp = now.toISOString().replace(/[:]/g, '-').replace(/\.\d+Z$/, 'Z');
  return resolve('recordings', `${stamp}.db`);
}
