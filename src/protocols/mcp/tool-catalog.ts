import { error, warning, type Finding } from '../../core/finding.js';
import { isJsonObject } from '../../core/json.js';
import { REDACTED } from '../../core/redacted.js';
import { MCP_RULES as RULES } from './mcp-rules.js';
import { toolSchemaCheck, type ToolSchemaCheck } from './tool-schemas.js';

/** Tools remembered per session; past this, a listing is taken as incomplete (no unknown-tool finding). */
export const MAX_LISTED_TOOLS = 2_000;
/** Calls awaiting their result remembered per session; past this, the oldest are forgotten. */
const MAX_PENDING_CALLS = 10_000;

interface ListedTool {
  input?: ToolSchemaCheck;
  output?: ToolSchemaCheck;
}

/**
 * The tools a session's server listed (every page of every `tools/list`), and the contracts their
 * schemas make: a call's `arguments` against the tool's `inputSchema`, a result's
 * `structuredContent` against its `outputSchema`, and a call to a tool never listed, which is said
 * only once a whole listing was seen (its last page, no `notifications/tools/list_changed` since).
 */
export class ToolCatalog {
  private readonly tools = new Map<string, ListedTool>();
  private complete = false;
  private overflowed = false;
  /** Calls awaiting their result, by the request's id key: the tool's name. */
  private readonly pending = new Map<string, string>();

  /** A tools/list result: its tools are added; a schema that cannot be checked is one warning. */
  listed(result: unknown): Finding[] {
    if (!isJsonObject(result) || !Array.isArray(result.tools)) return [];
    const findings: Finding[] = [];
    result.tools.forEach((tool, i) => {
      if (!isJsonObject(tool) || typeof tool.name !== 'string') return;
      if (!this.tools.has(tool.name) && this.tools.size >= MAX_LISTED_TOOLS) {
        this.overflowed = true;
        return;
      }
      const listed: ListedTool = {};
      for (const which of ['inputSchema', 'outputSchema'] as const) {
        if (tool[which] === undefined) continue;
        const check = toolSchemaCheck(tool[which]);
        if (!check.ok) {
          findings.push(warning(RULES.toolSchemaUnchecked, `/result/tools/${i}/${which}`, `the ${which} of tool '${tool.name}' is not checked: ${check.reason}`));
        }
        listed[which === 'inputSchema' ? 'input' : 'output'] = check;
      }
      this.tools.set(tool.name, listed);
    });
    // The last page (no cursor to the next) ends a listing.
    if (typeof result.nextCursor !== 'string' && !this.overflowed) this.complete = true;
    return findings;
  }

  /** The server said its tools changed: until they are listed again, an unlisted name may be a new tool. */
  listChanged(): void {
    this.complete = false;
  }

  /** A tools/call request (`idKey` of its id): the tool is known, its arguments fit its inputSchema. */
  call(idKey: string | undefined, params: unknown): Finding[] {
    if (!isJsonObject(params) || typeof params.name !== 'string') return [];
    const name = params.name;
    if (idKey !== undefined) {
      this.pending.delete(idKey);
      this.pending.set(idKey, name);
      if (this.pending.size > MAX_PENDING_CALLS) this.pending.delete(this.pending.keys().next().value!);
    }
    const tool = this.tools.get(name);
    if (!tool) {
      if (!this.complete) return [];
      return [warning(RULES.toolUnknown, '/params/name', `tool '${name}' was not in the server's tools/list (${this.tools.size} tools listed)`)];
    }
    if (tool.input?.ok !== true) return [];
    const args = params.arguments ?? {};
    const findings = this.validate(tool.input, args, RULES.toolArgumentsInvalid, '/params/arguments', { subject: `the arguments of tool '${name}'`, breach: 'break its inputSchema' });
    // A value stored redacted (a secret-named argument) is judged again from the store: not its fault.
    return findings.filter((f) => f.severity !== 'error' || valueAt(args, f.pointer.slice('/params/arguments'.length)) !== REDACTED);
  }

  /** The response to a tools/call: a result's `structuredContent` fits the tool's outputSchema. */
  answered(idKey: string, result: unknown): Finding[] {
    const name = this.pending.get(idKey);
    if (name === undefined) return [];
    this.pending.delete(idKey);
    const output = this.tools.get(name)?.output;
    // An error result need not fit (its content says what went wrong); a task's result comes later.
    if (output?.ok !== true || !isJsonObject(result) || result.isError === true || result.structuredContent === undefined) return [];
    return this.validate(output, result.structuredContent, RULES.toolStructuredContentInvalid, '/result/structuredContent', { subject: `the structuredContent of tool '${name}'`, breach: 'breaks its outputSchema' });
  }

  /** `value` (at `at` in the message) against a tool's schema: its first error, as `rule`. */
  private validate(check: Extract<ToolSchemaCheck, { ok: true }>, value: unknown, rule: string, at: string, said: { subject: string; breach: string }): Finding[] {
    const outcome = check.validate(value);
    if (outcome === 'timed-out') return [warning(RULES.toolSchemaUnchecked, at, `${said.subject}: not checked, a pattern of the schema took too long to match`)];
    return outcome.map((f) => error(rule, at + f.pointer, `${said.subject} ${said.breach}: ${f.message.replace(/^\(root\): /, '')}`));
  }
}

/** The value at a JSON pointer into `root`, if there is one. */
function valueAt(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isJsonObject(node)) node = node[key];
    else return undefined;
  }
  return node;
}
