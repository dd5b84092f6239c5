import { statSync } from 'node:fs';
import { readSchemaDocument, type KnownDocuments, type SchemaDocument, type SchemaSource } from './schema-document.js';

/**
 * A shipped schema file the build read, known by the `$id` the build's manifest gives it until the
 * document is used: `validate` of an AG-UI file needs AG-UI's 76 KB, not the ~1.4 MB of every
 * protocol's documents (each read and compared with the build's copy of its bytes, ~2 ms of a start).
 */
export class UnreadDocument {
  private read?: { doc: SchemaDocument | undefined };

  private constructor(
    readonly id: string,
    readonly file: string,
    private readonly source: SchemaSource,
    private readonly fallbackId: string | undefined,
    private readonly sha256: string,
    private readonly knownDocuments: KnownDocuments,
  ) {}

  /**
   * The file as an unread document when it has the size of the bytes the build read from it; undefined
   * otherwise (a file edited to another size, or gone), which is then read at load as before.
   */
  static of(file: string, source: SchemaSource, fallbackId: string | undefined, built: { id: string; sha256: string; size: number }, knownDocuments: KnownDocuments): UnreadDocument | undefined {
    const size = statSync(file, { throwIfNoEntry: false })?.size;
    return size === built.size ? new UnreadDocument(built.id, file, source, fallbackId, built.sha256, knownDocuments) : undefined;
  }

  /** The document as a load reads it (readSchemaDocument), read once. */
  document(): SchemaDocument | undefined {
    this.read ??= { doc: readSchemaDocument(this.file, this.source, this.fallbackId, this.knownDocuments) };
    return this.read.doc;
  }

  /** Whether the file holds the very bytes the build read: the document is then the one the manifest says. */
  isAsBuilt(): boolean {
    const doc = this.document();
    return doc !== undefined && doc.id === this.id && doc.sha256 === this.sha256;
  }
}
