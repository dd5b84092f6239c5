import { formatPointer } from '../../core/field-specs.js';
import { error, warning, type Finding } from '../../core/finding.js';
import { headerValue, type HeaderMap } from '../../core/header-value.js';
import { isJsonObject, type JsonObject } from '../../core/json.js';
import { REDACTED } from '../../core/redacted.js';
import type { RecordingScope } from '../recording-scope.js';
import { decodeMirroredHeader } from './header-encoding.js';
import { headerAnnotationsOf, type HeaderAnnotation, type ToolHeaderAnnotations } from './header-annotations.js';
import { MAX_LISTED_TOOLS } from './tool-catalog.js';
import { MCP_RULES as RULES } from './mcp-rules.js';

/** The prefix of a mirrored argument's header, lower case. */
const PARAM_HEADER = 'mcp-param-';
/** Clients remembered per recording; past this, a new client's calls are not held to its listings. */
const MAX_CLIENTS = 100;
/** Different definitions of one tool remembered; past this, its calls are not checked. */
const MAX_DEFINITIONS = 4;

/**
 * MCP 2026-07-28's mirrored tool arguments (`Mcp-Param-{Name}`), checked on a `tools/call` against
 * the `x-mcp-header` annotations of the tool's inputSchema that its client saw in a `tools/list`.
 * That version has no sessions: a listing is remembered for the recording, by endpoint (host and
 * path) and client (its `_meta` clientInfo, name and version), and a call is held only to the
 * listings of its own endpoint and client. A call of a tool its client was never seen listing (the
 * listing came before the recording, or from a client that names itself otherwise, or none at all)
 * is not checked. Each definition of a tool seen is kept: a header is owed only if every one of
 * them marks its argument, and is unmarked only if none does, so a client that still holds an older
 * listing is not faulted for it.
 */
export class ParamHeaders {
  /** By client key, then tool name: each distinct definition of the tool's annotations seen listed. */
  private readonly clients = new Map<string, Map<string, ToolHeaderAnnotations[]>>();

  /** The recording's listings: one per recording scope. */
  static of(scope: RecordingScope): ParamHeaders {
    return scope.entry('mcp-param-headers', () => new ParamHeaders());
  }

  /** A 2026-07-28 tools/list result the client `client` got: remembered; a tool whose annotations break the constraints, one error each. */
  listed(client: string | undefined, result: unknown): Finding[] {
    if (!isJsonObject(result) || !Array.isArray(result.tools)) return [];
    const tools = client === undefined ? undefined : this.toolsOf(client);
    const findings: Finding[] = [];
    result.tools.forEach((tool, i) => {
      if (!isJsonObject(tool) || typeof tool.name !== 'string') return;
      const annotations = headerAnnotationsOf(tool.inputSchema);
      if (annotations.kind === 'invalid') {
        findings.push(error(RULES.toolHeaderAnnotationInvalid, `/result/tools/${i}/inputSchema${annotations.pointer}`, `tool '${tool.name}' is invalid: ${annotations.reason}; a client on Streamable HTTP must leave the tool out of its list`));
      }
      if (tools !== undefined) remember(tools, tool.name, annotations);
    });
    return findings;
  }

  /** A 2026-07-28 tools/call of client `client`, sent with `headers`: its mirrored arguments against the tool's annotations. */
  call(client: string | undefined, params: JsonObject, headers: HeaderMap | undefined): Finding[] {
    const definitions = client === undefined || typeof params.name !== 'string' ? undefined : this.clients.get(client)?.get(params.name);
    if (definitions === undefined || !definitions.every((d) => d.kind === 'valid')) return [];
    const valid = definitions as Array<Extract<ToolHeaderAnnotations, { kind: 'valid' }>>;
    const args = isJsonObject(params.arguments) ? params.arguments : {};
    const name = params.name as string;
    const findings: Finding[] = [];
    // Owed: an argument every definition seen mirrors, with a value (null and absent send no header).
    for (const owed of valid[0].annotations.filter((a) => valid.every((d) => d.annotations.some((b) => sameAnnotation(a, b))))) {
      const value = valueAt(args, owed.path);
      if (value === undefined || value === null || headerValue(headers, PARAM_HEADER + owed.name) !== undefined) continue;
      findings.push(error(RULES.httpParamHeaderMissing, argumentPointer(owed.path), `tool '${name}' mirrors this argument into Mcp-Param-${owed.name} (x-mcp-header); the request has no such header`));
    }
    for (const [header, raw] of paramHeadersOf(headers)) {
      const marked = valid.flatMap((d) => d.annotations.filter((a) => a.name.toLowerCase() === header));
      if (marked.length === 0) {
        findings.push(warning(RULES.httpParamHeaderUnmarked, '', `the request has Mcp-Param-${header}, but no argument of tool '${name}' is annotated x-mcp-header '${header}' in its tools/list`));
        continue;
      }
      const problem = mismatch(raw, marked.map((a) => valueAt(args, a.path)));
      if (problem !== undefined) findings.push(error(RULES.httpParamHeaderMismatch, argumentPointer(marked[0].path), `Mcp-Param-${marked[0].name} of tool '${name}': ${problem}`));
    }
    return findings;
  }

  private toolsOf(client: string): Map<string, ToolHeaderAnnotations[]> | undefined {
    let tools = this.clients.get(client);
    if (tools === undefined && this.clients.size < MAX_CLIENTS) this.clients.set(client, (tools = new Map()));
    return tools;
  }
}

/** Who a 2026-07-28 request's listings belong to: its endpoint (host and path) and its client's clientInfo; undefined without clientInfo. */
export function paramClientOf(meta: unknown, host: string | undefined, path: string | undefined): string | undefined {
  const info = isJsonObject(meta) ? meta['io.modelcontextprotocol/clientInfo'] : undefined;
  if (!isJsonObject(info) || typeof info.name !== 'string') return undefined;
  return JSON.stringify([host ?? '', path ?? '', info.name, typeof info.version === 'string' ? info.version : '']);
}

function remember(tools: Map<string, ToolHeaderAnnotations[]>, name: string, annotations: ToolHeaderAnnotations): void {
  let definitions = tools.get(name);
  if (definitions === undefined) {
    if (tools.size >= MAX_LISTED_TOOLS) return;
    tools.set(name, (definitions = []));
  }
  const key = JSON.stringify(annotations);
  if (definitions.some((d) => JSON.stringify(d) === key)) return;
  // Too many definitions to reason about: the tool is no longer checked.
  definitions.push(definitions.length < MAX_DEFINITIONS ? annotations : { kind: 'unchecked' });
}

/** Why a header does not carry the body's value (none of `values`, one per definition marking it), or undefined when it does. */
function mismatch(raw: string, values: readonly unknown[]): string | undefined {
  const decoded = decodeMirroredHeader(raw);
  if (!decoded.ok) return `'${raw}' cannot be read: ${decoded.reason}`;
  const present = values.filter((v) => v !== undefined && v !== null);
  if (present.length === 0) return `the argument is ${values.includes(null) ? 'null' : 'absent'}, and then the client sends no header`;
  if (present.some((v) => sameValue(decoded.value, v))) return undefined;
  return `the header says ${JSON.stringify(decoded.value)}, the argument is ${JSON.stringify(present[0])}`;
}

/**
 * A decoded header against the argument it mirrors: a string as it is; a boolean as `true` or
 * `false`; an integer compared as a number (`42.0` is 42). A value stored redacted matches any; an
 * object or array has no header form (the annotation allows primitives only), so it is not compared.
 */
function sameValue(decoded: string, value: unknown): boolean {
  if (decoded === REDACTED || value === REDACTED) return true;
  if (typeof value === 'string') return decoded === value;
  if (typeof value === 'boolean') return decoded === String(value);
  if (typeof value === 'number') return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(decoded) && Number(decoded) === value;
  return true;
}

function sameAnnotation(a: HeaderAnnotation, b: HeaderAnnotation): boolean {
  return a.name.toLowerCase() === b.name.toLowerCase() && a.path.length === b.path.length && a.path.every((key, i) => key === b.path[i]);
}

function valueAt(args: JsonObject, path: readonly string[]): unknown {
  let node: unknown = args;
  for (const key of path) node = isJsonObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
  return node;
}

function argumentPointer(path: readonly string[]): string {
  return `/params/arguments${formatPointer(path)}`;
}

/** The request's `Mcp-Param-*` headers: lower-case name part, first value. */
function paramHeadersOf(headers: HeaderMap | undefined): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const key in headers) {
    if (key.length <= PARAM_HEADER.length || key.slice(0, PARAM_HEADER.length).toLowerCase() !== PARAM_HEADER) continue;
    const value = headers[key];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) found.push([key.slice(PARAM_HEADER.length).toLowerCase(), first]);
  }
  return found;
}
