#!/usr/bin/env node
// `tenant-auth-conformance SUBCOMMAND [options]`: one executable for everything the kit does.
// Each subcommand is a module loaded only when asked for, so that `serve` starts without loading
// Playwright and `rules` without the server. To add one, add a row to SUBCOMMANDS.
import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { sep } from 'node:path';
import { kitPackage } from '../kit/package-root.ts';
import { EXIT, EXIT_CODES_HELP } from './exit-codes.ts';

const PROGRAM = 'tenant-auth-conformance';

interface Subcommand {
  summary: string;
  /** The module's `main(argv)` returns the exit code (see exit-codes.ts). */
  load: () => Promise<{ main(argv: string[]): number | Promise<number> }>;
}

const SUBCOMMANDS: Record<string, Subcommand> = {
  run: {
    summary: 'check a deployment (--target FILE or --base-url URL), or the embedded reference server',
    load: () => import('./commands/run.ts'),
  },
  serve: {
    summary: 'start the reference server',
    load: () => import('./commands/serve.ts'),
  },
  rules: {
    summary: 'print the rule catalog: id, level, source, statement, needs (--json for machines)',
    load: () => import('./commands/rules.ts'),
  },
  init: {
    summary: 'write a starter target file for a base URL in the current directory',
    load: () => import('./commands/init.ts'),
  },
  keys: {
    summary: "print the reference fixtures' public test keys",
    load: () => import('./commands/keys.ts'),
  },
  compare: {
    summary: 'render several conformance.json reports as one rule × target matrix',
    load: () => import('./commands/compare.ts'),
  },
  merge: {
    summary: 'merge the blob reports of sharded runs into one set of reports',
    load: () => import('./commands/merge.ts'),
  },
  verify: {
    summary: "check a run's bundle: digests, statement and signature; print what it certifies",
    load: () => import('./commands/verify.ts'),
  },
  keygen: {
    summary: 'make an Ed25519 key pair for signing bundles (run --sign-key)',
    load: () => import('./commands/keygen.ts'),
  },
  registry: {
    summary: 'the certification registry: serve, publisher, publish, can-i-ship, diff',
    load: () => import('./commands/registry.ts'),
  },
  'client-report': {
    summary: "judge the clients in the reference server's journal (CLIENT CONFORMANT or not)",
    load: () => import('./commands/client-report.ts'),
  },
};

function helpText(): string {
  const width = Math.max(...Object.keys(SUBCOMMANDS).map((name) => name.length)) + 4;
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'The conformance kit of the multi-tenant API: its reference server and its conformance suite.',
    '',
    'Commands:',
    ...Object.entries(SUBCOMMANDS).map(([name, command]) => `  ${name.padEnd(width)}${command.summary}`),
    '',
    `Run \`${PROGRAM} <command> --help\` for a command's options.`,
    `  --version${''.padEnd(width - 7)}print the version`,
    `  --help${''.padEnd(width - 4)}print this help`,
    '',
    'Paths on the command line are relative to the current directory, and so are the defaults',
    '(reports/, .certs/, .reference-data/).',
    '',
    EXIT_CODES_HELP,
  ].join('\n');
}

function version(): string {
  return kitPackage().version;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    console.log(helpText());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === '--version' || name === '-v') {
    console.log(version());
    return EXIT.ok;
  }
  const subcommand = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (subcommand === undefined) {
    console.error(
      `Unknown command "${name}". Use one of: ${Object.keys(SUBCOMMANDS).join(', ')}.\nRun ${PROGRAM} --help for more.`,
    );
    return EXIT.usage;
  }
  const module = await subcommand.load();
  return module.main(rest);
}

/**
 * Every command's own errors are messages with an exit code; anything thrown past them (a file the
 * system refused, a defect) is its message and exit 3, never a stack trace for the user.
 */
async function mainWithoutStackTraces(argv: string[]): Promise<number> {
  try {
    return await main(argv);
  } catch (error) {
    console.error(`${PROGRAM}: ${error instanceof Error ? error.message : String(error)}${fixOf(error)}`);
    return EXIT.setup;
  }
}

function writable(directory: string): boolean {
  try {
    accessSync(directory, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The system's refusals of a path that a user can do something about. */
const PATH_REFUSALS = new Set(['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC']);

/** What to do about a file the system refused: the temporary directory is named as such. */
function fixOf(error: unknown): string {
  const { code, path } = error as NodeJS.ErrnoException;
  if (typeof path !== 'string' || code === undefined || !PATH_REFUSALS.has(code)) return '';
  const temporary = tmpdir();
  // A path under the temporary directory is its fault only when the directory itself is unusable:
  // a project kept under /tmp is not, and its own missing folder is named instead.
  if (path === temporary || (path.startsWith(`${temporary}${sep}`) && !writable(temporary)))
    return `\nFix: the temporary directory ${temporary} is missing, full or not writable: set TMPDIR to a directory this user can write to.`;
  return `\nFix: check that ${path} exists, has room and can be written by this user.`;
}

const code = await mainWithoutStackTraces(process.argv.slice(2));
// `serve` returns 0 and keeps running until a signal; any failure ends the process at once, even
// if a listener or a child is still open.
if (code !== EXIT.ok) process.exit(code);
