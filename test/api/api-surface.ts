/**
 * src/index.ts as the compiler sees it: every exported name (types included, which no run-time
 * check can list), and the types its functions take that a caller cannot name because they are
 * not exported.
 */
import { join } from 'node:path';
import ts from 'typescript';
import { REPO } from '../cli/run-cli.js';

const SRC = join(REPO, 'src') + '/';
/** Symbols a caller could import to name a type (not methods, properties or anonymous literals). */
const NAMED_TYPE = ts.SymbolFlags.Interface | ts.SymbolFlags.Class | ts.SymbolFlags.TypeAlias | ts.SymbolFlags.Enum;

export interface ApiSurface {
  /** Every name src/index.ts exports, values and types, sorted. */
  names: string[];
  /**
   * Types declared in src/ that an exported function, constructor or method takes (its options,
   * and whatever those hold, down to what a callback in them is handed) but that the index does
   * not export, each as `Name (reached from fn → …)`.
   */
  unexportedParameterTypes: string[];
}

export function apiSurface(): ApiSurface {
  const config = ts.getParsedCommandLineOfConfigFile(join(REPO, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('tsconfig.json could not be read');
  const index = join(SRC, 'index.ts');
  const program = ts.createProgram([index], { ...config.options, noEmit: true });
  const checker = program.getTypeChecker();
  const exportsOf = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(index)!)!);
  const target = (symbol: ts.Symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const exported = new Set(exportsOf.map(target));
  const missing = new Map<string, string>();
  const seen = new Set<ts.Type>();

  const inSrc = (symbol: ts.Symbol | undefined) => symbol?.declarations?.some((d) => d.getSourceFile().fileName.startsWith(SRC)) ?? false;
  const HIDDEN = ts.ModifierFlags.Private | ts.ModifierFlags.Protected;
  const isPublic = (symbol: ts.Symbol) => {
    const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
    return !(declaration && ts.getCombinedModifierFlags(declaration) & HIDDEN) && !symbol.name.startsWith('#');
  };

  function visitSignature(signature: ts.Signature, path: string): void {
    for (const parameter of signature.getParameters()) visitType(checker.getTypeOfSymbol(parameter), `${path}(${parameter.name})`);
  }

  function visitType(type: ts.Type, path: string): void {
    if (seen.has(type)) return;
    seen.add(type);
    const named = type.aliasSymbol ?? type.getSymbol();
    const isNamed = named !== undefined && (named.flags & NAMED_TYPE) !== 0 && inSrc(named);
    if (isNamed && !exported.has(named)) missing.set(named.name, path);
    const here = isNamed ? `${path} → ${named.name}` : path;
    // An exported class is an API of its own: its methods are walked from the exports.
    if (isNamed && named.flags & ts.SymbolFlags.Class) return;
    for (const argument of type.aliasTypeArguments ?? []) visitType(argument, here);
    if (type.isUnionOrIntersection()) for (const part of type.types) visitType(part, here);
    if (type.flags & ts.TypeFlags.Object) {
      if ((type as ts.ObjectType).objectFlags & ts.ObjectFlags.Reference) for (const argument of checker.getTypeArguments(type as ts.TypeReference)) visitType(argument, here);
      for (const property of checker.getPropertiesOfType(type)) {
        if (inSrc(property)) visitType(checker.getNonNullableType(checker.getTypeOfSymbol(property)), `${here}.${property.name}`);
      }
      // A callback's parameters are what the caller is handed.
      for (const signature of type.getCallSignatures()) visitSignature(signature, here);
    }
  }

  for (const symbol of exportsOf.map(target)) {
    if (symbol.flags & ts.SymbolFlags.Function) {
      for (const signature of checker.getTypeOfSymbol(symbol).getCallSignatures()) visitSignature(signature, symbol.name);
    } else if (symbol.flags & ts.SymbolFlags.Class) {
      const statics = checker.getTypeOfSymbol(symbol);
      for (const signature of statics.getConstructSignatures()) {
        const declaration = signature.declaration as ts.Declaration | undefined;
        if (!declaration || !(ts.getCombinedModifierFlags(declaration) & HIDDEN)) visitSignature(signature, `new ${symbol.name}`);
      }
      const members = [
        ...checker.getPropertiesOfType(statics).map((m) => ({ m, owner: `${symbol.name}.` })),
        ...checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)).map((m) => ({ m, owner: `${symbol.name}#` })),
      ];
      for (const { m, owner } of members) {
        if (!isPublic(m) || !inSrc(m)) continue;
        for (const signature of checker.getTypeOfSymbol(m).getCallSignatures()) visitSignature(signature, owner + m.name);
      }
    }
  }

  return {
    names: exportsOf.map((s) => s.name).sort(),
    unexportedParameterTypes: [...missing].map(([name, path]) => `${name} (reached from ${path})`).sort(),
  };
}
