/**
 * State a protocol keeps for a whole recording, across its channels (for example the extension UI
 * requests of a Pi daemon session, which every connection to that session may answer). One per
 * recording; a checker takes its own entry by a key it owns.
 */
export class RecordingScope {
  private readonly values = new Map<string, unknown>();

  /**
   * `live`: the traffic is judged as it comes (record), for as long as the recording runs, so state
   * kept across streams must stay bounded (the least recently active forgotten first); validate and
   * diff judge a finished recording whole, and keep everything.
   */
  constructor(readonly live = false) {}

  /** The entry under `key`, made by `make` the first time it is asked for. */
  entry<T>(key: string, make: () => T): T {
    if (this.values.has(key)) return this.values.get(key) as T;
    const value = make();
    this.values.set(key, value);
    return value;
  }
}
