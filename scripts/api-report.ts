// The public API's report: for each entry point of package.json's `exports`, the declarations the
// build emits for it (.d.ts), export by export, followed by every type of the kit they reference
// that is not exported itself — the whole surface a user's code can touch, without comments.
// `npm run api-report` rewrites library/*.api.md; tests/library/api-report.test.ts fails when
// they differ from what the code declares, so a change of the public surface is a reviewed change
// of that file (the job api-extractor's reports do, with the compiler the kit builds with).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { isMainModule } from '../kit/package-root.ts';

const ROOT = resolve(import.meta.dirname, '..');
/** Where the declarations would be emitted: never written, only a place for module resolution. */
const VIRTUAL = join(ROOT, '.api-report');

export interface EntryPoint {
  /** The subpath of `exports`: `.` or `./playwright`. */
  subpath: string;
  /** Its source, relative to the repository root. */
  source: string;
  /** The committed report. */
  report: string;
}

/** The entry points, read from package.json's `exports` (types → library/NAME.d.ts). */
export function entryPoints(): EntryPoint[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { types: string }>;
  };
  return Object.entries(manifest.exports)
    .filter(([subpath]) => subpath !== './package.json')
    .map(([subpath, conditions]) => {
      const source = conditions.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts');
      return { subpath, source, report: source.replace(/\.ts$/, '.api.md') };
    });
}

/** The declarations the build would emit for `sources` and what they import, in memory. */
function emitDeclarations(sources: readonly string[]): Map<string, string> {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error('tsconfig.build.json could not be read.');
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    declaration: true,
    emitDeclarationOnly: true,
    outDir: VIRTUAL,
    rootDir: ROOT,
  };
  const program = ts.createProgram(
    sources.map((source) => join(ROOT, source)),
    options,
  );
  const emitted = new Map<string, string>();
  const result = program.emit(undefined, (file, text) => emitted.set(resolve(file), text));
  // The type check is `npm run typecheck`'s: only what stops declarations from being emitted.
  const problems = result.diagnostics;
  if (problems.length > 0)
    throw new Error(
      ts.formatDiagnostics(problems, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => '\n',
      }),
    );
  return emitted;
}

/** A program over the emitted declarations, resolving modules as a user's project would. */
function declarationProgram(emitted: Map<string, string>, roots: readonly string[]): ts.Program {
  const options: ts.CompilerOptions = {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
    skipLibCheck: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (file) => emitted.has(resolve(file)) || fileExists(file);
  host.readFile = (file) => emitted.get(resolve(file)) ?? readFile(file);
  host.getSourceFile = (file, language, onError, create) => {
    const text = emitted.get(resolve(file));
    return text === undefined
      ? getSourceFile(file, language, onError, create)
      : ts.createSourceFile(file, text, language, true);
  };
  host.directoryExists = (directory) =>
    [...emitted.keys()].some((file) => file.startsWith(`${resolve(directory)}/`)) ||
    ts.sys.directoryExists(directory);
  return ts.createProgram(roots, options, host);
}

/** The report of each entry point, by its source path. */
export function apiReports(entries: readonly EntryPoint[] = entryPoints()): Map<string, string> {
  const emitted = emitDeclarations(entries.map((entry) => entry.source));
  const declarationOf = (source: string): string => join(VIRTUAL, source.replace(/\.ts$/, '.d.ts'));
  const program = declarationProgram(
    emitted,
    entries.map((entry) => declarationOf(entry.source)),
  );
  const checker = program.getTypeChecker();
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  const reports = new Map<string, string>();
  for (const entry of entries) {
    const file = program.getSourceFile(declarationOf(entry.source));
    const moduleSymbol = file && checker.getSymbolAtLocation(file);
    if (!file || !moduleSymbol) throw new Error(`No declarations were emitted for ${entry.source}.`);
    const printed = new Set<ts.Declaration>();
    const referenced = new Map<string, { name: string; declarations: ts.Declaration[] }>();
    const ownDeclaration = (declaration: ts.Declaration): boolean =>
      emitted.has(resolve(declaration.getSourceFile().fileName));
    const text = (declaration: ts.Declaration): string => {
      const node = ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;
      return printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile());
    };
    const collect = (node: ts.Node): void => {
      const name = ts.isTypeReferenceNode(node)
        ? node.typeName
        : ts.isExpressionWithTypeArguments(node)
          ? node.expression
          : ts.isTypeQueryNode(node)
            ? node.exprName
            : undefined;
      if (name) {
        let symbol = checker.getSymbolAtLocation(name);
        if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
        const declarations = (symbol?.declarations ?? []).filter(ownDeclaration);
        const unseen = declarations.filter((declaration) => !printed.has(declaration));
        if (symbol && unseen.length > 0) {
          const where = relative(VIRTUAL, unseen[0]?.getSourceFile().fileName ?? '').replace(/\.d\.ts$/, '');
          const key = `${symbol.getName()} (${where})`;
          if (!referenced.has(key)) {
            unseen.forEach((declaration) => printed.add(declaration));
            referenced.set(key, { name: key, declarations: unseen });
            unseen.forEach((declaration) => ts.forEachChild(declaration, collect));
          }
        }
      }
      ts.forEachChild(node, collect);
    };
    const exportsText: string[] = [];
    const exported = checker
      .getExportsOfModule(moduleSymbol)
      .sort((a, b) => a.getName().localeCompare(b.getName()));
    for (const symbol of exported) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      const declarations = target.declarations ?? [];
      declarations.forEach((declaration) => printed.add(declaration));
      const body = declarations.map(text).join('\n');
      exportsText.push(`// export ${symbol.getName()}\n${body}`);
    }
    for (const symbol of exported) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      for (const declaration of target.declarations ?? []) ts.forEachChild(declaration, collect);
    }
    const referencedText = [...referenced.values()]
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((entry) => `// ${entry.name}\n${entry.declarations.map(text).join('\n')}`);
    reports.set(
      entry.source,
      [
        `# API report: \`tenant-auth-conformance${entry.subpath === '.' ? '' : entry.subpath.slice(1)}\``,
        '',
        `Generated by \`npm run api-report\` from the declarations the build emits for \`${entry.source}\`;`,
        'a test fails when it differs. Every export, then every type of the kit they reference.',
        '',
        '```ts',
        ...exportsText.flatMap((section) => [section, '']),
        ...(referencedText.length > 0
          ? [
              '// ---- referenced, not exported ----',
              '',
              ...referencedText.flatMap((section) => [section, '']),
            ]
          : []),
        '```',
        '',
      ].join('\n'),
    );
  }
  return reports;
}

if (isMainModule(import.meta.url)) {
  const entries = entryPoints();
  const reports = apiReports(entries);
  for (const entry of entries) {
    const file = join(ROOT, entry.report);
    writeFileSync(file, reports.get(entry.source) ?? '');
    console.log(`wrote ${relative(ROOT, file)} (${dirname(entry.source)})`);
  }
}
