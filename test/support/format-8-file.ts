/**
 * Makes a recording written by this build look as format 8 wrote it (before raw_blocks): every
 * message's bytes back in `raw`, the block columns and table dropped, and the file's version 8. Tests
 * that build an older file from a current one start here and go on dropping what came before.
 */
import type Database from 'better-sqlite3';
import { openDatabase } from '../../src/store/open-database.js';
import { rawBytesSql } from '../../src/store/raw-blocks.js';

/** On a connection from openDatabase (it reads the blocks); leaves user_version and format_version to the caller when `setVersion` is false. */
export function formatEightOf(db: Database.Database, setVersion = true): void {
  db.exec(`UPDATE messages SET raw = ${rawBytesSql()} WHERE raw_block IS NOT NULL;
    ALTER TABLE messages DROP COLUMN raw_block; ALTER TABLE messages DROP COLUMN raw_at; ALTER TABLE messages DROP COLUMN raw_size; DROP TABLE raw_blocks`);
  if (setVersion) db.exec('UPDATE recording SET format_version = 8; PRAGMA user_version = 8');
}

/** The file at `path` as format 8 wrote it (formatEightOf), in place. */
export function makeFormatEight(path: string): void {
  const db = openDatabase(path);
  try {
    formatEightOf(db);
  } finally {
    db.close();
  }
}
