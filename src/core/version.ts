import { readFileSync } from 'node:fs';

/** The package version, read once from package.json so recordings can say which tool made them. */
export const TOOL_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
