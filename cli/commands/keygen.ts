// `tenant-auth-conformance keygen [--out PREFIX] [--force]`: an Ed25519 key pair for signing
// bundles (run --sign-key), PREFIX.key (private, mode 0600) and PREFIX.pub (public, to publish).
// Prints the public key's fingerprint and paths, never the private key.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import {
  generateKeyPair,
  KEYGEN_OPENSSL,
  keyFingerprint,
  publicKeyFromPem,
} from '../../conformance/attestation/signing-key.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';

const DEFAULT_PREFIX = 'conformance-signing';

const HELP = `Usage: tenant-auth-conformance keygen [--out PREFIX] [--force]

Makes an Ed25519 key pair for signing bundles: PREFIX.key, the private key (PEM, readable by
you alone: keep it secret, e.g. in your CI's secret store), and PREFIX.pub, the public key (PEM:
publish it, and its fingerprint, where your customers can find them). Default PREFIX:
${DEFAULT_PREFIX}. The same with openssl:
  ${KEYGEN_OPENSSL}

Options:
  --out PREFIX   where to write the two files (PREFIX.key and PREFIX.pub)
  --force        replace existing files
  --help         print this help

Exit codes: 0 written, 2 a bad option, or a file exists (without --force) or cannot be written.`;

export function main(argv: string[]): number {
  const parsed = commandArguments(
    argv,
    { out: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length > 0) {
    console.error(`keygen takes no arguments (got ${positionals.join(' ')}); use --out PREFIX.\n\n${HELP}`);
    return EXIT.usage;
  }
  const prefix = values.out ?? DEFAULT_PREFIX;
  const privateFile = `${prefix}.key`;
  const publicFile = `${prefix}.pub`;
  const existing = [privateFile, publicFile].filter((file) => existsSync(file));
  if (existing.length > 0 && values.force !== true) {
    console.error(
      `${existing.join(' and ')} already exist: choose another --out PREFIX, or replace them with --force.`,
    );
    return EXIT.usage;
  }
  const { privatePem, publicPem } = generateKeyPair();
  try {
    // Readable by the owner alone: `mode` applies only to a new file, so a replaced one is set too.
    writeFileSync(privateFile, privatePem, { mode: 0o600, flag: values.force === true ? 'w' : 'wx' });
    chmodSync(privateFile, 0o600);
    writeFileSync(publicFile, publicPem, { mode: 0o644 });
  } catch (error) {
    console.error(
      `Cannot write ${privateFile} or ${publicFile} (${(error as NodeJS.ErrnoException).code ?? 'error'}): check that the directory exists and is writable.`,
    );
    return EXIT.usage;
  }
  console.log(
    [
      `Private key: ${privateFile} (keep it secret; sign with: tenant-auth-conformance run --sign-key ${privateFile} …)`,
      `Public key:  ${publicFile} (publish it; check with: tenant-auth-conformance verify REPORTS/bundle --public-key ${publicFile})`,
      `Fingerprint: ${keyFingerprint(publicKeyFromPem(publicPem, publicFile))}`,
    ].join('\n'),
  );
  return EXIT.ok;
}
