import { LABEL_FIELDS } from '../../core/message-label.js';

/** Where a stored message's label reads from: SQL expressions of its columns and its exchange's. */
export interface LabelColumns {
  json: string;
  sender: string;
  carrier: string;
  channel: string;
  status: string;
  method: string;
  path: string;
}

const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** A string field of the JSON, when it is one (json_extract would hand out objects as JSON text). */
function field(json: string, path: string): string {
  return `CASE WHEN json_type(${json}, ${quote(path)}) = 'text' THEN json_extract(${json}, ${quote(path)}) END`;
}

/** Present and not null: what `??` passes over. */
function present(json: string, path: string): string {
  return `coalesce(json_type(${json}, ${quote(path)}), 'null') <> 'null'`;
}

/**
 * The name a stored JSON object gives itself, as core/message-label.ts finds it (LABEL_FIELDS, in
 * their order), or NULL. `json` must hold valid JSON.
 */
export function ownNameSql(json: string): string {
  const F = LABEL_FIELDS;
  const carried = `CASE ${F.carried.map((k) => `WHEN ${present(json, `$.${k}`)} THEN ${field(json, `$.${k}.${F.type}`)}`).join(' ')} END`;
  return `CASE WHEN json_type(${json}) = 'object' THEN coalesce(
    ${field(json, `$.${F.type}`)},
    ${field(json, `$.${F.kind}`)} || coalesce(':' || ${carried}, ''),
    ${F.names.map((k) => field(json, `$.${k}`)).join(', ')},
    CASE WHEN ${field(json, `$.${F.jsonRpc}`)} = ${quote(F.jsonRpcVersion)}
      THEN CASE WHEN json_type(${json}, ${quote(`$.${F.id}`)}) IS NOT NULL THEN 'response' ELSE ${quote(F.envelopeLabel)} END END) END`;
}

/** JavaScript's `typeof` of stored JSON, as messageLabel falls back to it. */
export function jsonTypeSql(json: string): string {
  return `CASE json_type(${json}) WHEN 'text' THEN 'string' WHEN 'integer' THEN 'number' WHEN 'real' THEN 'number'
    WHEN 'true' THEN 'boolean' WHEN 'false' THEN 'boolean' ELSE 'object' END`;
}

/**
 * messageLabel in SQL: the label of a stored message read by SQLite from its JSON, without parsing it
 * in JavaScript. Its own name, else for a body its request line or status (httpLabel), else its JSON
 * type, else its channel or carrier.
 *
 * `c.json` is read once (readOnce): written out at each of its ~30 uses, the statement
 * was ~11 KB of SQL, which took SQLite ~0.7-1 ms to prepare (each `findings` or `show` of a recording
 * paid it) and evaluated the expression again at each use (a finding list of 200,000 rows: ~2x the CPU).
 */
export function messageLabelSql(c: LabelColumns): string {
  return readOnce(c.json, (json) => {
    const valid = `${json} IS NOT NULL AND json_valid(${json})`;
    return `coalesce(
      CASE WHEN ${valid} THEN ${ownNameSql(json)} END,
      CASE WHEN ${c.carrier} = 'body' THEN coalesce(
        CASE WHEN ${c.sender} = 'server' AND ${c.status} IS NOT NULL THEN 'response ' || ${c.status} END,
        nullif(trim(coalesce(${c.method}, '') || ' ' || coalesce(${c.path}, '')), '')
      ) END,
      CASE WHEN ${valid} THEN ${jsonTypeSql(json)} END,
      ${c.channel}, ${c.carrier})`;
  });
}

/**
 * `sql(json)` with `json` an SQL expression evaluated once per row: a subquery that names it, the
 * way a label's SQL, which reads the JSON at each of its ~30 steps, stays short to prepare and quick to run.
 */
export function readOnce(json: string, sql: (named: string) => string): string {
  return `(SELECT ${sql('label_json.label_json_text')} FROM (SELECT ${json} AS label_json_text) AS label_json)`;
}
