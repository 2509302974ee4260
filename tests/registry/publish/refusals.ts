// Every bad input a publish must refuse, as a table: a forgery, a bundle cut short or signed by a key
// its publisher does not hold, an oversized or malformed upload, a name that looks like SQL, a secret
// inside the bundle, a token that is malformed, unknown, a reader's or another publisher's. Each is
// a 4xx naming the problem; publish.test.ts checks that nothing is stored and the registry serves on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyFingerprint } from '../../../conformance/attestation/signing-key.ts';
import { uploadOf } from '../../../registry/publish/upload.ts';
import type { TestRegistry } from '../support/registry.ts';
import {
  byOtherPublisher,
  byStranger,
  conformant,
  copy,
  duplicatedSubject,
  forSecrets,
  forged,
  stranger,
  truncated,
  unsigned,
} from './publish-bundles.ts';

export interface Json {
  stored?: string;
  run?: Record<string, unknown> & { id: number };
  rules?: { ruleId: string; protocol: string; verdict: string; level: string }[];
  error?: { code: string; message: string };
}

export interface Answer {
  status: number;
  json: Json;
}

/** A bad input: how it is sent, and the status, error code and message the registry answers. */
export interface Refusal {
  name: string;
  send: () => Promise<Answer>;
  status: number;
  code: string;
  message: RegExp;
}

/** Where a refusal is sent: the suite's registry, its publisher's token, a publish as a publisher. */
export interface Publisher {
  publish: (bundle: string, deployment: string, version: string, as?: string) => Promise<Answer>;
  registry: () => TestRegistry;
  token: () => string;
}

export function refusalsOf({ publish, registry, token }: Publisher): Refusal[] {
  return [
    {
      name: 'a forged report (verdict flipped, re-digested, re-signed by the vendor)',
      send: () => publish(forged(), 'acme-prod', '9.0.0'),
      status: 422,
      code: 'bundle_not_verified',
      message: /NOT VERIFIED.*conformance\.json says CONFORMANT, but its rules come to NOT CONFORMANT/,
    },
    {
      name: 'a truncated file',
      send: () => publish(truncated(), 'acme-prod', '9.0.1'),
      status: 422,
      code: 'bundle_not_verified',
      message: /conformance\.json was changed/,
    },
    {
      name: 'a duplicated subject',
      send: () => publish(duplicatedSubject(), 'acme-prod', '9.0.2'),
      status: 422,
      code: 'bundle_not_verified',
      message: /names conformance\.json twice/,
    },
    {
      name: 'an unknown signer',
      send: () => publish(byStranger, 'acme-prod', '9.0.3'),
      status: 403,
      code: 'signer_not_trusted',
      message: new RegExp(`signed by ${keyFingerprint(stranger.publicKey)}, which is not a key of acme`),
    },
    {
      name: "another publisher's key (a token is bound to its own keys)",
      send: () => publish(byOtherPublisher, 'acme-prod', '9.0.4'),
      status: 403,
      code: 'signer_not_trusted',
      message: /not a key of acme/,
    },
    {
      name: 'an unsigned bundle',
      send: () => publish(unsigned, 'acme-prod', '9.0.5'),
      status: 422,
      code: 'bundle_unsigned',
      message: /not signed: run with --sign-key/,
    },
    {
      name: 'an oversized bundle',
      send: async () => {
        const body = JSON.parse(uploadOf(conformant, 'acme-prod', '9.0.6')) as {
          files: Record<string, string>;
        };
        body.files['exchanges.har'] = Buffer.alloc(600 * 1024, 'x').toString('base64');
        const answer = await registry().request('/api/v1/runs', {
          method: 'POST',
          body: JSON.stringify(body),
          token: token(),
        });
        return { status: answer.status, json: answer.json as Json };
      },
      status: 413,
      code: 'bundle_too_large',
      message: /larger than this registry's bound of 524288 bytes/,
    },
    {
      name: 'a body cut short',
      send: async () => {
        const body = uploadOf(conformant, 'acme-prod', '9.0.7');
        const answer = await registry().request('/api/v1/runs', {
          method: 'POST',
          body: body.slice(0, body.length / 2),
          token: token(),
        });
        return { status: answer.status, json: answer.json as Json };
      },
      status: 400,
      code: 'bad_upload',
      message: /not JSON \(cut short\?\)/,
    },
    {
      name: 'a SQL-looking deployment name',
      send: () => publish(conformant, "acme'; DROP TABLE runs;--", '9.0.8'),
      status: 400,
      code: 'bad_upload',
      message: /"deployment" must be a name of lower-case letters/,
    },
    {
      name: 'a SQL-looking version',
      send: () => publish(conformant, 'acme-prod', "1' OR '1'='1"),
      status: 400,
      code: 'bad_upload',
      message: /"version" must be a version label/,
    },
    {
      name: 'a file name that is a path',
      send: async () => {
        const body = JSON.parse(uploadOf(conformant, 'acme-prod', '9.0.9')) as {
          files: Record<string, string>;
        };
        body.files['../escape'] = 'AAAA';
        const answer = await registry().request('/api/v1/runs', {
          method: 'POST',
          body: JSON.stringify(body),
          token: token(),
        });
        return { status: answer.status, json: answer.json as Json };
      },
      status: 400,
      code: 'bad_upload',
      message: /"\.\.\/escape", which is not a file name of a bundle/,
    },
    {
      name: 'a private key inside the bundle',
      send: () => {
        const directory = copy(forSecrets);
        writeFileSync(
          join(directory, 'notes.txt'),
          '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEI\n-----END PRIVATE KEY-----\n',
        );
        return publish(directory, 'acme-prod', '9.1.0');
      },
      status: 422,
      code: 'secret_in_bundle',
      message: /notes\.txt holds a secret/,
    },
    {
      name: 'a registry token inside the bundle (anyone’s)',
      send: () => {
        const directory = copy(forSecrets);
        writeFileSync(join(directory, 'token.txt'), `tacr_${'C'.repeat(43)}\n`);
        return publish(directory, 'acme-prod', '9.1.0');
      },
      status: 422,
      code: 'secret_in_bundle',
      message: /token\.txt holds a secret \(a private key or a registry token\)/,
    },
    {
      name: 'a path with a malformed percent-encoding',
      send: async () => {
        const answer = await registry().request('/deployments/%E0%A4%A');
        return { status: answer.status, json: answer.json as Json };
      },
      status: 400,
      code: 'bad_path',
      message: /malformed percent-encoding/,
    },
    {
      name: 'a malformed token',
      send: () => publish(conformant, 'acme-prod', '9.1.1', 'not a token'),
      status: 401,
      code: 'malformed_token',
      message: /is not "Bearer tacr_"/,
    },
    {
      name: 'an unknown token',
      send: () => publish(conformant, 'acme-prod', '9.1.2', `tacr_${'A'.repeat(43)}`),
      status: 401,
      code: 'unknown_token',
      message: /not one of this registry's publishers/,
    },
    {
      name: 'a reader’s token (no signing key)',
      send: () => publish(conformant, 'acme-prod', '9.1.3', registry().tokens.get('auditor')),
      status: 403,
      code: 'not_a_publisher',
      message: /auditor may read but not publish/,
    },
    {
      name: "another publisher's deployment",
      send: () => publish(byOtherPublisher, 'acme-prod', '9.1.4', registry().tokens.get('globex')),
      status: 403,
      code: 'deployment_owned',
      message: /"acme-prod" is published by another publisher/,
    },
  ];
}
