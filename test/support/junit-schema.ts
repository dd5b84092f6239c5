import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { validateXML } from 'xmllint-wasm';

/**
 * JUnit reports checked against the JUnit XML schema CI systems read (the Jenkins xunit plugin's
 * junit-10.xsd, test/fixtures/junit/) by libxml2 itself, compiled to WebAssembly (xmllint-wasm): a
 * real XML parser and XML Schema validator, not a check of our own. Each run starts a worker and
 * compiles the module (about a quarter of a second), so a test file checks all its reports in one.
 */
const XSD = { fileName: 'junit-10.xsd', contents: readFileSync(fileURLToPath(new URL('../fixtures/junit/junit-10.xsd', import.meta.url)), 'utf8') };

export interface NamedXml {
  /** What the test calls the report (its command, its file), to say which one failed. */
  name: string;
  xml: string;
}

/**
 * libxml2's errors for each report, by name, in one validator run: `[]` for a valid one; a parse
 * error (a document that is not well-formed XML) is an error like any other.
 */
export async function junitSchemaErrors(reports: readonly NamedXml[]): Promise<Map<string, string[]>> {
  const errors = new Map(reports.map((r) => [r.name, [] as string[]]));
  if (reports.length === 0) return errors;
  // Names of our own: xmllint reads them as arguments, and a test's name may hold anything.
  const fileName = (i: number) => `report-${i}.xml`;
  const result = await validateXML({ xml: reports.map((r, i) => ({ fileName: fileName(i), contents: r.xml })), schema: XSD });
  for (const e of result.errors) {
    const at = e.loc === null ? -1 : reports.findIndex((_, i) => fileName(i) === e.loc!.fileName);
    if (at >= 0) errors.get(reports[at]!.name)!.push(`line ${e.loc!.lineNumber}: ${e.message}`);
  }
  // A failed run that named no line of any report: say it rather than pass.
  if (!result.valid && [...errors.values()].every((list) => list.length === 0)) throw new Error(`xmllint failed without naming a report:\n${result.rawOutput}`);
  return errors;
}

/**
 * Call once at the top of a test file: returns `expectValidJunit(name, xml)`, which keeps the report,
 * and after the file's tests checks every report kept in one validator run, failing the file with
 * each invalid report's name and libxml2's errors.
 */
export function useJunitSchema(): (name: string, xml: string) => void {
  const kept: NamedXml[] = [];
  afterAll(async () => {
    const invalid = [...(await junitSchemaErrors(kept))].filter(([, list]) => list.length > 0);
    if (invalid.length > 0) throw new Error(`JUnit reports not valid against junit-10.xsd:\n${invalid.map(([name, list]) => `${name}:\n  ${list.join('\n  ')}`).join('\n')}`);
  });
  return (name, xml) => {
    if (kept.some((r) => r.name === name)) throw new Error(`two JUnit reports named ${name}: give each its own name`);
    kept.push({ name, xml });
  };
}
