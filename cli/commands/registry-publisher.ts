// `registry publisher --name NAME --public-key FILE… [--publishers FILE]`: adds a publisher (or
// gives one a new token and these keys) and prints its token, the only time it is shown; the
// file keeps its SHA-256. A running `registry serve` reads the change at its next request.
import { join, resolve } from 'node:path';
import { loadPublicKey, publicKeyPem, KeyFileError } from '../../conformance/attestation/signing-key.ts';
import { addPublisher, PublishersFileError } from '../../registry/publish/publishers.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';

const HELP = `Usage: tenant-auth-conformance registry publisher --name NAME [--public-key FILE]... [--operator]
                                                  [--publishers FILE | --data DIR]

Adds a publisher to the registry's publishers file, bound to the Ed25519 public keys its bundles
may be signed with (keygen makes them), and prints its publish token once: only its SHA-256 is
kept. Run it again for the same name to replace the token and keys. Without --public-key the
entry is a reader: its token reads a registry started with --private-reads, and publishes nothing.
A running registry applies the change at once: a replaced token is refused from its next request.

Options:
  --name NAME           lower-case letters, digits and dashes (e.g. acme)
  --public-key FILE     a public key the publisher signs with; repeatable
  --operator            the registry's operator: its token may yank any run (registry yank), apply
                        the retention policy (registry retention) and read the audit list
  --publishers FILE     (default: DIR/publishers.json)
  --data DIR            the registry's data directory (default: .registry-data)
  --help                print this help

Exit codes:
  0  added; the token is printed on standard output
  2  usage error: a bad name, a key file that is not an Ed25519 public key
  3  the publishers file or its directory cannot be written (the message names the path)`;

export function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(
    argv,
    {
      name: { type: 'string' },
      'public-key': { type: 'string', multiple: true },
      publishers: { type: 'string' },
      data: { type: 'string' },
      operator: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return Promise.resolve(parsed);
  const { values } = parsed;
  if (values.name === undefined) {
    console.error(`Give the publisher's --name.\n\n${HELP}`);
    return Promise.resolve(EXIT.usage);
  }
  const file = resolve(values.publishers ?? join(values.data ?? '.registry-data', 'publishers.json'));
  try {
    const pems = (values['public-key'] ?? []).map((path) => publicKeyPem(loadPublicKey(path)));
    const operator = values.operator === true;
    const { token, fingerprints } = addPublisher(file, values.name, pems, { operator });
    console.error(
      [
        `Publisher ${values.name} in ${file}, ${fingerprints.length > 0 ? `signing with ${fingerprints.join(', ')}` : 'a reader (no signing key)'}${operator ? ", the registry's operator" : ''}.`,
        'Its token follows on standard output, shown this once: keep it as a CI secret (TENANT_AUTH_REGISTRY_TOKEN).',
        'A running registry applies it at once, no restart: a token it replaced is refused from now on.',
      ].join('\n'),
    );
    console.log(token);
    return Promise.resolve(EXIT.ok);
  } catch (error) {
    const { code, path } = error as NodeJS.ErrnoException;
    if (typeof code === 'string' && typeof path === 'string') {
      // The system's own refusal, of the very path it refused: no guess at another cause.
      console.error(
        `The publishers file ${file} cannot be read or written: the system refused ${path} (${code}). Check that ${path === file ? 'its directory' : path} can be created and written by this user, or give --data DIR or --publishers FILE elsewhere.`,
      );
      return Promise.resolve(EXIT.setup);
    }
    if (!(error instanceof PublishersFileError) && !(error instanceof KeyFileError)) throw error;
    console.error(error.message);
    return Promise.resolve(EXIT.usage);
  }
}
