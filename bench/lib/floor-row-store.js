// The floor's store of a stream's messages, a row per message as the writer stores them, and the schema checks
// the floor judges them by: shared by the floor benches (bench/record-floor.js for CPU, bench/rss-floor.js for
// memory). `load` imports a build's dist module by its path, so that a floor is measured on the build it is
// set against.
import { rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { openFreshRecording } from './fresh-recording.js';

const Database = createRequire(import.meta.url)('better-sqlite3');

/** What the writer leaves out of a chunk's INSERT and writes as literals (store/write-queue.ts). */
const USUALLY_NULL = ['rawTruncatedFrom', 'json', 'schemaRef', 'reason'];
const USUALLY_SHARED = ['sender', 'carrier', 'channel', 'status', 'findingCount'];

/** The schema check each message is judged by, and the compiled function under it; `load` imports a build's dist module by its path. */
export async function floorValidators(load) {
  await load('protocols/catalog.js');
  const [{ SchemaRegistry }, { aguiSchemas }, { PI_RPC_EVENT_REF }] = await Promise.all([
    load('schema/schema-registry.js'),
    load('protocols/agui/event-schema.js'),
    load('protocols/pi-rpc/schema-refs.js'),
  ]);
  const registry = SchemaRegistry.load({ useEnv: false });
  const compiled = (ref) => {
    // The build's compiled function itself (the registry's is a wrapper that counts a value's size first).
    const fn = registry.compiled?.find(ref, registry.documents, true);
    if (fn) return fn;
    const check = registry.check(ref);
    return (value) => check.validate(value).length === 0;
  };
  const agui = aguiSchemas(registry).events;
  const byType = new Map([...agui].map(([type, check]) => [type, compiled(check.ref)]));
  return {
    registry,
    sse: (value) => byType.get(value.type)(value),
    ws: compiled(PI_RPC_EVENT_REF),
    refs: { sse: agui.get('TEXT_MESSAGE_CONTENT').ref, ws: PI_RPC_EVENT_REF },
  };
}

/** A fresh recording of the newest schema with its messages' ChunkedInsert, as the writer makes it. */
export async function openMessageRowStore({ load, dir, name, kind, schemaRef, rowsPerTransaction = 1024, cacheKib }) {
  const [{ ChunkedInsert }, { MESSAGE_COLUMNS }, queue] = await Promise.all([load('store/chunked-insert.js'), load('store/schema.js'), load('store/write-queue.js')]);
  const { db, file, exchanges } = await openFreshRecording(load, dir, name, kind === 'ws' ? 'ws' : 'sse', schemaRef);
  // The recording worker's own page cache, when the caller measures its memory (bench/rss-floor.js).
  if (cacheKib !== undefined) db.pragma(`cache_size = -${cacheKib}`);
  const messages = new ChunkedInsert(db, 'messages', MESSAGE_COLUMNS, exchanges, queue.MESSAGES_USUALLY_NULL ?? USUALLY_NULL, queue.MESSAGES_USUALLY_SHARED ?? USUALLY_SHARED);
  const commit = db.transaction((rows) => {
    for (const row of rows) messages.add(row);
    messages.flush();
  });
  let id = 0;
  let rawBytes = 0;
  let closed = false;
  const held = [];
  const carrier = kind === 'ws' ? 'frame' : 'event';
  const channel = kind === 'ws' ? 'text' : null;
  const jsonAt = kind === 'ws' ? 0 : 6;
  return {
    /** One message's row, held (as the writer's queue holds it) until its transaction commits. */
    add(raw, at) {
      id++;
      rawBytes += raw.length;
      held.push({ id, exchangeId: 1, seq: id, sender: 'server', carrier, channel, tOffsetMs: at, raw, rawTruncatedFrom: null, json: null, status: 'valid', schemaRef: null, reason: null, findingCount: 0, jsonAt, schemaRefId: 1 });
      if (held.length >= rowsPerTransaction) this.commit();
    },
    commit() {
      if (held.length === 0) return;
      commit(held);
      held.length = 0;
    },
    end() {
      this.commit();
    },
    /** Commits what is held and closes the file (its WAL checkpointed into it, as the writer's close does). */
    close() {
      if (closed) return;
      this.commit();
      db.close();
      closed = true;
    },
    /** Every row added is in the closed file as written, or this throws; returns what the file holds. */
    verify() {
      const check = new Database(file, { readonly: true });
      let stored;
      try {
        stored = check.prepare("SELECT count(*) AS n, sum(status = 'valid' AND carrier = ?) AS same, sum(length(raw)) AS bytes FROM messages").get(carrier);
      } finally {
        check.close();
      }
      if (stored.n !== id || stored.same !== id || stored.bytes !== rawBytes) throw new Error(`${name}: ${stored.n} rows stored (${stored.same} as written, ${stored.bytes} bytes), not ${id} (${rawBytes})`);
      return { rows: id, messages: id, rawBytes, metaBytes: 0, exceptions: 0, fileBytes: statSync(file).size };
    },
    remove() {
      for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    },
  };
}

