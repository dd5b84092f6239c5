// One stream's messages stored N to a row (bench/lib/message-pack.js) in a fresh recording, the way the
// floor's store of a row per message does it (bench/record-floor.js): rows through the store's ChunkedInsert
// (16 a statement, the exceptions column left out while null), held until their transaction commits, one
// transaction per 1,024 messages. A pack still open when a transaction commits waits for the next one (with N
// dividing 1,024, none is); `end` writes it as it is.
import { rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { openFreshRecording } from './fresh-recording.js';
import { PACK_TABLE_SQL, PackBuilder, messageKind, packColumns, unpack } from './message-pack.js';

const Database = createRequire(import.meta.url)('better-sqlite3');

/**
 * Opens `${name}.db` in `dir` (through `load`, a build's dist module by its path) with the `message_packs`
 * table, for one exchange's messages of `message` ({ transport, sender, carrier, channel, jsonAt }: the same
 * for each), judged by `schemaRef`, `perRow` to a row.
 */
export async function openPackedRowStore({ load, dir, name, message, schemaRef, perRow, messagesPerTransaction = 1024 }) {
  const { db, file, exchanges, ChunkedInsert } = await openFreshRecording(load, dir, name, message.transport, schemaRef);
  db.exec(PACK_TABLE_SQL);
  const packs = new ChunkedInsert(db, 'message_packs', packColumns(await load('store/columns.js')), exchanges, ['exceptions'], ['count']);
  const commitRows = db.transaction((rows) => {
    for (const row of rows) packs.add(row);
    packs.flush();
  });
  const kind = messageKind(message.sender, message.carrier, message.channel);
  const jsonAt = message.jsonAt;
  const builder = new PackBuilder(perRow);
  const held = [];
  let uncommitted = 0;
  let seq = 0;
  let packId = 0;
  let rawBytes = 0;
  let closed = false;
  return {
    file,
    /** One message (`exception`: undefined for the plain case, see PackBuilder.add), held until its transaction commits. */
    add(raw, tOffsetMs, exception) {
      seq++;
      rawBytes += raw.length;
      if (builder.add(raw, tOffsetMs, seq, kind, jsonAt, 1, exception)) held.push(builder.take(++packId, 1));
      if (++uncommitted >= messagesPerTransaction) this.commit();
    },
    /** Commits the full packs held. */
    commit() {
      uncommitted = 0;
      if (held.length === 0) return;
      commitRows(held);
      held.length = 0;
    },
    /** Commits every message added, the last pack as full as it is. */
    end() {
      const last = builder.take(packId + 1, 1);
      if (last !== undefined) {
        packId++;
        held.push(last);
      }
      this.commit();
    },
    /** Ends and closes the file (its WAL checkpointed into it, as the writer's close does). */
    close() {
      if (closed) return;
      this.end();
      db.close();
      closed = true;
    },
    /**
     * Reads every pack back from the closed file and unpacks it: every message added is there once, in seq
     * order, with its bytes (the JSON where json_at says), or this throws. Returns what the file holds.
     */
    verify() {
      const check = new Database(file, { readonly: true });
      let rows = 0;
      let messages = 0;
      let storedRaw = 0;
      let metaBytes = 0;
      let exceptions = 0;
      try {
        const all = check.prepare('SELECT first_seq AS firstSeq, count, raw, meta, exceptions FROM message_packs WHERE exchange_id = 1 ORDER BY first_seq');
        for (const pack of all.iterate()) {
          rows++;
          metaBytes += pack.meta.length;
          storedRaw += pack.raw.length;
          if (pack.exceptions !== null) exceptions += JSON.parse(pack.exceptions).length;
          for (const m of unpack(pack)) {
            if (m.seq !== ++messages) throw new Error(`${name}: seq ${m.seq} where ${messages} was due`);
            if (m.jsonAt !== null && m.raw[m.jsonAt] !== 0x7b) throw new Error(`${name}: message ${m.seq}'s JSON is not at ${m.jsonAt}`);
          }
        }
      } finally {
        check.close();
      }
      if (messages !== seq || storedRaw !== rawBytes || rows !== packId) throw new Error(`${name}: ${messages} messages (${storedRaw} bytes) in ${rows} rows stored, not ${seq} (${rawBytes}) in ${packId}`);
      return { rows, messages, rawBytes: storedRaw, metaBytes, exceptions, fileBytes: statSync(file).size };
    },
    remove() {
      for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    },
  };
}
