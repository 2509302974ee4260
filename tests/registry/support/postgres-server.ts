// A throwaway PostgreSQL server for the registry's tests: Debian's binaries (scripts/ensure-
// postgresql.sh installs them), a cluster copied from one made by initdb (template-cache.ts) into a
// temporary directory, listening on a loopback port only, trusting local connections, removed when
// closed. PostgreSQL refuses to run
// as root (CI runs as root), so there it runs as the `postgres` user (or `nobody`) through
// setpriv, which execs the server itself: the process the test stops is the postmaster.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { scratchDirectory } from '../../support/scratch.ts';
import { cachedTemplate } from './template-cache.ts';

const VERSIONS_DIR = '/usr/lib/postgresql';

export interface PostgresServer {
  /** `postgres://registry@127.0.0.1:PORT/postgres` */
  url: string;
  /** A URL of a new, empty database on this server. */
  newDatabase(name: string): Promise<string>;
  close(): Promise<void>;
}

/** The newest installed version's bin directory. */
function binDirectory(): string {
  const versions = existsSync(VERSIONS_DIR)
    ? readdirSync(VERSIONS_DIR).filter((name) => existsSync(join(VERSIONS_DIR, name, 'bin', 'postgres')))
    : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined)
    throw new Error(
      `PostgreSQL is not installed (${VERSIONS_DIR}/*/bin/postgres): run bash scripts/ensure-postgresql.sh.`,
    );
  return join(VERSIONS_DIR, newest, 'bin');
}

/** As root, the command runs as an unprivileged user PostgreSQL accepts. */
function unprivileged(): { prefix: string[]; uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const user of ['postgres', 'nobody']) {
    let uid: number;
    let gid: number;
    try {
      uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
      gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
    } catch {
      continue; // no such user: try the next
    }
    return { prefix: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'], uid, gid };
  }
  throw new Error('Running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as.');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startPostgres(): Promise<PostgresServer> {
  const bin = binDirectory();
  const user = unprivileged();
  const home = scratchDirectory('registry-postgres-');
  if (user) chownSync(home, user.uid, user.gid);
  const data = join(home, 'data');
  /** `program` (a path, or a name on PATH) as the cluster's user. */
  const as = (program: string, args: string[]): [string, string[]] => {
    const full = [program, ...args];
    return user
      ? [user.prefix[0] ?? 'setpriv', [...user.prefix.slice(1), ...full]]
      : [full[0] ?? '', full.slice(1)];
  };
  // The cluster is a copy of one initdb made once for this version and user (template-cache.ts):
  // initdb costs about 0.8 s of CPU per test file, the copy a third of that.
  const template = await cachedTemplate(
    `postgresql-${basename(dirname(bin))}-${user?.uid ?? 'self'}`,
    (building) => {
      if (user) chownSync(building, user.uid, user.gid);
      const [initdb, initdbArgs] = as(join(bin, 'initdb'), [
        '-D',
        join(building, 'data'),
        '-A',
        'trust',
        '-U',
        'registry',
        '-E',
        'UTF8',
        '--no-sync',
      ]);
      execFileSync(initdb, initdbArgs, { stdio: 'ignore', timeout: 120_000 });
    },
  );
  // As the cluster's user, keeping its modes: PostgreSQL refuses a data directory others can read.
  const [copy, copyArgs] = as('cp', ['-a', join(template, 'data'), data]);
  execFileSync(copy, copyArgs, { stdio: 'ignore', timeout: 120_000 });
  const port = await freePort();
  // fsync off: a throwaway cluster, and the machine is shared.
  const [postgres, postgresArgs] = as(join(bin, 'postgres'), [
    '-D',
    data,
    '-k',
    home,
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-c',
    'fsync=off',
    '-c',
    'max_connections=50',
  ]);
  const child: ChildProcess = spawn(postgres, postgresArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const url = `postgres://registry@127.0.0.1:${port}/postgres`;
  const { default: pg } = await import('pg');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => undefined);
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`PostgreSQL did not start:\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return {
    url,
    async newDatabase(name) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      // A test's own name, from its code: quoted as an identifier all the same.
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      await client.end();
      return `postgres://registry@127.0.0.1:${port}/${encodeURIComponent(name)}`;
    },
    async close() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        // SIGINT: PostgreSQL's fast shutdown (ends connections, no waiting for clients).
        child.kill('SIGINT');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}
