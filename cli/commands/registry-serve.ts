// `registry serve`: the registry over HTTPS, on the embedded database in --data (default
// .registry-data/) or on a PostgreSQL server (--database-url), migrated at start.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_GATE_POOL_SIZE, DEFAULT_POOL_SIZE, openDatabase } from '../../registry/database/database.ts';
import { migrate, DatabaseTooNewError } from '../../registry/database/migrations.ts';
import { DirectoryInUseError, lockDirectory } from '../../registry/database/directory-lock.ts';
import { registryTls } from '../../registry/http/certificate.ts';
import { openGateThread, type GateThread } from '../../registry/gate/gate.ts';
import {
  DEFAULT_MAX_BUNDLE_BYTES,
  DEFAULT_PAGES_AT_ONCE,
  startRegistry,
} from '../../registry/http/server.ts';
import { DEFAULT_MAX_UPLOADS } from '../../registry/http/upload-gate.ts';
import { PublishersFile, PublishersFileError } from '../../registry/publish/publishers.ts';
import { KeyFileError } from '../../conformance/attestation/signing-key.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';

const HELP = `Usage: tenant-auth-conformance registry serve [--data DIR | --database-url URL]
                                              [--publishers FILE] [--port N] [--host ADDRESS]
                                              [--cert FILE --key FILE] [--private-reads]
                                              [--webhook-hosts LIST] [--webhook-ca FILE]
                                              [--gate-port N]

Starts the certification registry: a JSON API (docs/registry-openapi.json), the pages of certified
implementations, deployments and runs, and a badge per deployment. Every published bundle is
verified on arrival, with the publisher's own keys, by the code of \`verify\`.

Options:
  --data DIR            the registry's directory: the embedded database (PGlite, in DIR/database),
                        the publishers file, a lock (one registry per DIR), uploads as they arrive
                        (DIR/uploads) (default: .registry-data)
  --database-url URL    a PostgreSQL server instead (postgres://user@host:5432/db), the same
                        schema and migrations, applied at start; no password in it (ps shows
                        arguments): the password comes from PGPASSWORD or --database-password-file
  --database-password-file FILE
                        the database password, read from FILE (its first line)
  --publishers FILE     who may publish, with which keys (registry publisher writes it)
                        (default: DIR/publishers.json)
  --port N              (default: 8443)
  --host ADDRESS        the address to listen on (default: 127.0.0.1)
  --cert FILE --key FILE
                        the registry's TLS certificate and key; without them, a certificate for
                        localhost from the kit's local CA in --cert-dir
  --cert-dir DIR        (default: .certs)
  --max-bundle-bytes N  the largest bundle accepted (default: ${DEFAULT_MAX_BUNDLE_BYTES})
  --max-uploads N       uploads received at once, 1 to 64; as many more wait, the next are
                        refused 503 with Retry-After (default: ${DEFAULT_MAX_UPLOADS})
  --pages-at-once N     pages and API reads other than can-i-ship and the badge answered at once,
                        1 to 64; 64 more per slot wait, the next are refused 503 with Retry-After
                        (default: ${DEFAULT_PAGES_AT_ONCE})
  --pool-size N         a PostgreSQL server's connections for publishing, pages and every read
                        but can-i-ship and the badge, 1 to 100 (default: ${DEFAULT_POOL_SIZE})
  --gate-pool-size N    a PostgreSQL server's connections kept for can-i-ship and the badge, 1 to
                        20 (default: ${DEFAULT_GATE_POOL_SIZE}); the embedded database answers them first instead
  --gate-port N         also serve can-i-ship and the badge on port N (0: a free one), from a
                        thread of their own: no page, upload or crowd on --port delays them
                        (on the embedded database that thread holds it); give release
                        pipelines this port's URL
  --private-reads       every read (API, pages, badges) needs a token of the publishers file
  --webhook-hosts LIST  the only hosts webhooks may deliver to, comma-separated (*.example.com
                        for every host below it); default: any host, over https
  --webhook-ca FILE     a CA to trust for webhook endpoints besides the system's (repeatable)
  --help                print this help

Exit codes:
  0  the registry ran and was stopped (SIGINT, SIGTERM)
  2  usage error: a bad option, an unreadable publishers file or key
  3  setup error: the database cannot be opened or migrated, DIR is another registry's, the port
     is taken`;

/** An option's whole number from 1 to `high` (`fallback` when not given), or what is wrong with it. */
function wholeNumber(
  name: string,
  text: string | undefined,
  fallback: number,
  high: number,
): number | string {
  const value = Number(text ?? fallback);
  return Number.isInteger(value) && value >= 1 && value <= high
    ? value
    : `--${name}: "${text}" is not a whole number from 1 to ${high}.`;
}

/** The URL with its password hidden, for the banner. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return 'the --database-url given';
  }
}

export async function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(
    argv,
    {
      data: { type: 'string' },
      'database-url': { type: 'string' },
      'database-password-file': { type: 'string' },
      publishers: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      'cert-dir': { type: 'string' },
      'max-bundle-bytes': { type: 'string' },
      'max-uploads': { type: 'string' },
      'pages-at-once': { type: 'string' },
      'pool-size': { type: 'string' },
      'gate-pool-size': { type: 'string' },
      'gate-port': { type: 'string' },
      'private-reads': { type: 'boolean' },
      'webhook-hosts': { type: 'string' },
      'webhook-ca': { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const port = Number(values.port ?? 8443);
  const maxBundleBytes = Number(values['max-bundle-bytes'] ?? DEFAULT_MAX_BUNDLE_BYTES);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port: "${values.port}" is not a port number (0 to 65535).`);
    return EXIT.usage;
  }
  const gatePort = values['gate-port'] === undefined ? undefined : Number(values['gate-port']);
  if (gatePort !== undefined && (!/^[0-9]{1,5}$/.test(values['gate-port'] ?? '') || gatePort > 65535)) {
    console.error(`--gate-port: "${values['gate-port']}" is not a port number (0 to 65535).`);
    return EXIT.usage;
  }
  if (!Number.isInteger(maxBundleBytes) || maxBundleBytes < 1024) {
    console.error(
      `--max-bundle-bytes: "${values['max-bundle-bytes']}" is not a number of bytes (at least 1024).`,
    );
    return EXIT.usage;
  }
  const maxUploads = Number(values['max-uploads'] ?? DEFAULT_MAX_UPLOADS);
  if (!Number.isInteger(maxUploads) || maxUploads < 1 || maxUploads > 64) {
    console.error(`--max-uploads: "${values['max-uploads']}" is not a whole number from 1 to 64.`);
    return EXIT.usage;
  }
  const lanes = {
    pagesAtOnce: wholeNumber('pages-at-once', values['pages-at-once'], DEFAULT_PAGES_AT_ONCE, 64),
    poolSize: wholeNumber('pool-size', values['pool-size'], DEFAULT_POOL_SIZE, 100),
    gatePoolSize: wholeNumber('gate-pool-size', values['gate-pool-size'], DEFAULT_GATE_POOL_SIZE, 20),
  };
  const badLane = Object.values(lanes).find((value) => typeof value === 'string');
  if (typeof badLane === 'string') {
    console.error(badLane);
    return EXIT.usage;
  }
  if ((values.cert === undefined) !== (values.key === undefined)) {
    console.error('--cert and --key go together: give both, or neither for a local certificate.');
    return EXIT.usage;
  }
  const webhookHosts = values['webhook-hosts']?.split(',').map((host) => host.trim());
  if (webhookHosts?.some((host) => !/^(\*\.)?[A-Za-z0-9.-]+$|^\[[0-9a-fA-F:]+\]$/.test(host))) {
    console.error(
      `--webhook-hosts: "${values['webhook-hosts']?.slice(0, 100)}" is not a comma-separated list of host names (hooks.example.com, *.example.com).`,
    );
    return EXIT.usage;
  }
  const webhookCas: string[] = [];
  for (const file of values['webhook-ca'] ?? []) {
    try {
      webhookCas.push(readFileSync(file, 'utf8'));
    } catch (error) {
      console.error(
        `--webhook-ca: ${resolve(file)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): give a PEM file this user can read.`,
      );
      return EXIT.usage;
    }
  }
  const directory = resolve(values.data ?? '.registry-data');
  const publishersFile = resolve(values.publishers ?? join(directory, 'publishers.json'));
  let publishers;
  try {
    // Followed as it changes: a publisher added or a token replaced counts without a restart.
    publishers = new PublishersFile(publishersFile, (message) => console.error(message));
  } catch (error) {
    if (!(error instanceof PublishersFileError) && !(error instanceof KeyFileError)) throw error;
    console.error(error.message);
    return EXIT.usage;
  }
  const databaseUrl = values['database-url'];
  let databasePassword: string | undefined;
  if (databaseUrl !== undefined && URL.canParse(databaseUrl) && new URL(databaseUrl).password !== '') {
    console.error(
      `--database-url holds a password, which any user of this machine sees in ps: give ${shownUrl(databaseUrl)} without it, and the password in PGPASSWORD or --database-password-file FILE.`,
    );
    return EXIT.usage;
  }
  const passwordFile = values['database-password-file'];
  if (passwordFile !== undefined) {
    try {
      databasePassword = readFileSync(passwordFile, 'utf8').split(/\r?\n/)[0] ?? '';
    } catch (error) {
      console.error(
        `--database-password-file: ${resolve(passwordFile)} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): give a file this user can read, holding the password.`,
      );
      return EXIT.usage;
    }
  }
  let lock: { release(): void } | undefined;
  try {
    // The embedded database is one process's: a second registry on the directory is refused.
    if (databaseUrl === undefined) lock = lockDirectory(directory);
  } catch (error) {
    if (!(error instanceof DirectoryInUseError)) throw error;
    console.error(error.message);
    return EXIT.setup;
  }
  let db;
  let gate: GateThread | undefined;
  try {
    // With --gate-port, the gate thread reads through its own connections; on the embedded
    // database it opens PGlite and this thread reaches it through it.
    if (gatePort !== undefined)
      gate = await openGateThread(
        databaseUrl !== undefined
          ? {
              kind: 'server',
              url: databaseUrl,
              ...(databasePassword !== undefined ? { password: databasePassword } : {}),
              gatePoolSize: lanes.gatePoolSize as number,
            }
          : { kind: 'embedded', directory: join(directory, 'database') },
        (line) => console.log(line),
      );
    db =
      gate?.db ??
      (await openDatabase(
        {
          directory: join(directory, 'database'),
          ...(databaseUrl !== undefined ? { databaseUrl } : {}),
          ...(databasePassword !== undefined ? { databasePassword } : {}),
        },
        { poolSize: lanes.poolSize as number, gatePoolSize: lanes.gatePoolSize as number },
      ));
    await migrate(db);
  } catch (error) {
    const reason = error instanceof DatabaseTooNewError ? error.message : (error as Error).message;
    console.error(
      `The registry's database cannot be opened: ${reason.replaceAll(databaseUrl ?? '\u0000', shownUrl(databaseUrl ?? ''))}`,
    );
    await db?.close().catch(() => undefined);
    await gate?.close();
    lock?.release();
    return EXIT.setup;
  }
  try {
    const tls = await registryTls({
      ...(values.cert !== undefined ? { certFile: values.cert } : {}),
      ...(values.key !== undefined ? { keyFile: values.key } : {}),
      certDir: resolve(values['cert-dir'] ?? '.certs'),
    });
    const registry = await startRegistry({
      db,
      publishers,
      tls,
      port,
      host: values.host ?? '127.0.0.1',
      maxBundleBytes,
      maxUploads,
      pagesAtOnce: lanes.pagesAtOnce as number,
      privateReads: values['private-reads'] === true,
      webhooks: {
        trustedCas: webhookCas,
        ...(webhookHosts !== undefined
          ? { allowedHosts: webhookHosts.map((host) => host.replace(/^\[|\]$/g, '')) }
          : {}),
      },
      // On the data directory's disk, not in /tmp (often a tmpfs, which is memory).
      uploadsDirectory: join(directory, 'uploads'),
      ...(gate !== undefined && gatePort !== undefined
        ? { gate: { thread: gate, port: gatePort, publishersFile } }
        : {}),
      // The embedded database keeps a bundle's large files beside it, in the directory this
      // registry holds the lock of. A server's database keeps them in their rows: the registries on
      // one server may run on several hosts, each with its own data directory.
      ...(databaseUrl === undefined ? { blobDirectory: join(directory, 'blobs') } : {}),
    });
    const stop = (): void => {
      void registry
        .close()
        .then(() => db.close())
        .then(() => gate?.close())
        .finally(() => lock?.release())
        .then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    console.log(
      [
        `Registry at ${registry.url}`,
        ...(registry.gateUrl !== undefined
          ? [`  gate:       ${registry.gateUrl} (can-i-ship and the badge, on a thread of their own)`]
          : []),
        `  database:   ${databaseUrl !== undefined ? `PostgreSQL server ${shownUrl(databaseUrl)}` : `embedded (PGlite) in ${join(directory, 'database')}`}`,
        `  publishers: ${publishers.current().length} (${publishersFile}, read again when it changes)`,
        `  reads:      ${values['private-reads'] === true ? 'need a token' : 'public'}`,
        `  webhooks:   to ${webhookHosts !== undefined ? webhookHosts.join(', ') : 'any https host'}${webhookCas.length > 0 ? `, trusting ${webhookCas.length} more CA${webhookCas.length > 1 ? 's' : ''}` : ''}`,
        ...(tls.caPath ? [`  CA:         ${tls.caPath} (clients: --ca-file)`] : []),
      ].join('\n'),
    );
    return EXIT.ok;
  } catch (error) {
    console.error(`The registry cannot start: ${(error as Error).message}`);
    await db.close().catch(() => undefined);
    await gate?.close();
    lock?.release();
    return EXIT.setup;
  }
}
