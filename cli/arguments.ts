// The arguments of a subcommand: parsed, or answered at once — `--help` prints the command's help
// (exit 0), and an unknown option prints what was wrong and the help (exit 2).
import { parseArgs, type ParseArgsConfig } from 'node:util';

type ParseArgsOptionsConfig = NonNullable<ParseArgsConfig['options']>;
import { EXIT } from './exit-codes.ts';

type Parsed<T extends ParseArgsOptionsConfig> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; allowPositionals: true }>
>;

/** The parsed arguments, or the exit code when the command has nothing more to do. */
export function commandArguments<const T extends ParseArgsOptionsConfig>(
  argv: readonly string[],
  options: T,
  help: string,
): Parsed<T> | number {
  let parsed: Parsed<T>;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true });
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${help}`);
    return EXIT.usage;
  }
  if ((parsed.values as { help?: unknown }).help === true) {
    console.log(help);
    return EXIT.ok;
  }
  return parsed;
}
