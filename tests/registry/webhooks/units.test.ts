// The pieces of webhook delivery one at a time, without a database: what a webhook URL may be,
// the signature, the backoff's bounds, and one attempt against an endpoint that never answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { attemptDelivery } from '../../../registry/webhooks/attempt.ts';
import { DEFAULT_RETRY, nextAttempt } from '../../../registry/webhooks/backoff.ts';
import { signature, verifySignature } from '../../../registry/webhooks/sign.ts';
import { eventsProblem, hostAllowed, webhookUrlProblem } from '../../../registry/webhooks/url.ts';
import { join } from 'node:path';
import { makeCertificates } from '../../independent-implementation/certificates.ts';
import { scratchDirectory } from '../../support/scratch.ts';

const host = fc.domain();

test('only an https URL without credentials is a webhook URL', () => {
  fc.assert(
    fc.property(host, fc.webPath(), (name, path) => {
      assert.equal(webhookUrlProblem(`https://${name}${path}`), undefined);
      assert.match(webhookUrlProblem(`http://${name}${path}`) ?? '', /over https only/);
      assert.match(webhookUrlProblem(`https://user:secret@${name}${path}`) ?? '', /credentials/);
      assert.ok(!(webhookUrlProblem(`https://user:secret@${name}${path}`) ?? '').includes('secret@'));
    }),
  );
  for (const bad of [
    undefined,
    42,
    '',
    'ftp://x.example/',
    'https://x.example/#frag',
    `https://x.example/${'a'.repeat(2000)}`,
  ])
    assert.notEqual(webhookUrlProblem(bad), undefined, String(bad).slice(0, 40));
});

test('--webhook-hosts allows its hosts and, with *., the hosts below one, and nothing else', () => {
  fc.assert(
    fc.property(host, host, (allowed, other) => {
      assert.ok(hostAllowed(allowed, [allowed]));
      assert.ok(hostAllowed(allowed.toUpperCase(), [allowed]), 'without case');
      assert.ok(hostAllowed(`ci.${allowed}`, [`*.${allowed}`]));
      assert.ok(!hostAllowed(allowed, [`*.${allowed}`]), '*. is below the host, not the host');
      assert.equal(hostAllowed(other, [allowed]), other.toLowerCase() === allowed.toLowerCase());
      assert.ok(!hostAllowed(`${allowed}.evil.example`, [allowed]));
      assert.ok(hostAllowed(other, undefined), 'no list: any host');
    }),
  );
  assert.match(
    webhookUrlProblem('https://10.0.0.5/hook', ['hooks.example']) ?? '',
    /not one this registry delivers to/,
  );
});

test('the events are a non-empty list of known ones', () => {
  assert.equal(eventsProblem(['run.published', 'rule.regressed']), undefined);
  assert.match(eventsProblem([]) ?? '', /Give the events/);
  assert.match(eventsProblem('run.published') ?? '', /Give the events/);
  assert.match(eventsProblem(['run.published', 'run.eaten']) ?? '', /Unknown event "run.eaten"/);
});

test('the signature is the HMAC-SHA256 of the exact bytes, and no other secret or body matches it', () => {
  // GitHub's documented example: secret "It's a Secret to Everybody", body "Hello, World!".
  assert.equal(
    signature("It's a Secret to Everybody", 'Hello, World!'),
    'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
  );
  fc.assert(
    fc.property(
      fc.string({ minLength: 1 }),
      fc.uint8Array({ minLength: 1 }),
      fc.nat(),
      (secret, bytes, at) => {
        const body = Buffer.from(bytes);
        const header = signature(secret, body);
        assert.ok(verifySignature(secret, body, header));
        const changed = Buffer.from(body);
        changed[at % changed.length] = (changed[at % changed.length] ?? 0) ^ 1;
        assert.ok(!verifySignature(secret, changed, header));
        assert.ok(!verifySignature(`${secret}!`, body, header));
        assert.ok(!verifySignature(secret, body, undefined));
      },
    ),
  );
});

test('retries back off, double, and stop within the attempts and the total time', () => {
  fc.assert(
    fc.property(
      fc.record({
        baseDelayMs: fc.integer({ min: 1, max: 60_000 }),
        maxDelayMs: fc.integer({ min: 1, max: 3_600_000 }),
        maxAttempts: fc.integer({ min: 1, max: 20 }),
        maxTotalMs: fc.integer({ min: 1, max: 48 * 3_600_000 }),
      }),
      (policy) => {
        const created = new Date('2026-11-28T00:00:00Z');
        let now = created;
        let attempts = 1;
        let previous = 0;
        // Bounded: the loop ends at maxAttempts whatever the policy.
        for (; attempts <= policy.maxAttempts; attempts++) {
          const next = nextAttempt(policy, attempts, created, now);
          if (!next) break;
          const delay = next.getTime() - now.getTime();
          assert.ok(delay >= previous && delay <= policy.maxDelayMs, `delay ${delay}`);
          assert.ok(next.getTime() - created.getTime() <= policy.maxTotalMs);
          previous = delay;
          now = next;
        }
        assert.ok(attempts <= policy.maxAttempts);
      },
    ),
  );
  const created = new Date(0);
  assert.equal(nextAttempt(DEFAULT_RETRY, 1, created, created)?.getTime(), DEFAULT_RETRY.baseDelayMs);
  assert.equal(nextAttempt(DEFAULT_RETRY, DEFAULT_RETRY.maxAttempts, created, created), undefined);
});

test('an attempt at an endpoint that never answers ends at its timeout, and names why', async () => {
  const certificates = await makeCertificates('Webhook Timeout Test CA', ['localhost']);
  const held: import('node:http').ServerResponse[] = [];
  const server = createServer({ key: certificates.key, cert: certificates.cert }, (_request, response) => {
    held.push(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const claimed = {
    id: 1,
    deliveryId: '00000000-0000-4000-8000-000000000001',
    eventId: '00000000-0000-4000-8000-000000000002',
    event: 'run.published' as const,
    url: `https://localhost:${(server.address() as AddressInfo).port}/hook`,
    secret: 'tacw_unit',
    body: '{}',
    attempts: 0,
    createdAt: new Date(),
  };
  try {
    const result = await attemptDelivery(claimed, {
      trustedCas: [certificates.caPem],
      timeoutMs: 300,
      signal: new AbortController().signal,
    });
    assert.deepEqual(result, { error: 'no answer within 300 ms' });
    assert.equal(held.length, 1, 'the endpoint got the request');
    // Without the CA, the certificate is refused: TLS is verified, never switched off.
    const untrusted = await attemptDelivery(claimed, {
      trustedCas: [],
      timeoutMs: 5_000,
      signal: new AbortController().signal,
    });
    assert.ok(
      'error' in untrusted && /not trusted|CA this registry|not from a CA/.test(untrusted.error),
      JSON.stringify(untrusted),
    );
    assert.ok(!JSON.stringify(untrusted).includes(claimed.secret));
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('serve refuses a --webhook-hosts that is no host list and a --webhook-ca it cannot read (exit 2, before any start)', async (t) => {
  const { main } = await import('../../../cli/commands/registry-serve.ts');
  const printed: string[] = [];
  t.mock.method(console, 'error', (text: string) => printed.push(text));
  const publishers = join(scratchDirectory('registry-webhook-serve-'), 'publishers.json');
  assert.equal(await main(['--publishers', publishers, '--webhook-hosts', 'hooks.example,bad host/x']), 2);
  assert.match(printed.join('\n'), /--webhook-hosts: .* is not a comma-separated list of host names/);
  assert.equal(
    await main(['--publishers', publishers, '--webhook-ca', join(publishers, 'no-such-ca.pem')]),
    2,
  );
  assert.match(printed.join('\n'), /--webhook-ca: .*no-such-ca\.pem cannot be read \((ENOTDIR|ENOENT)\)/);
});
