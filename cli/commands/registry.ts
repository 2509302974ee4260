// `tenant-auth-conformance registry serve|publisher|publish|can-i-ship|diff|recheck|yank|record-release|retention|audit|webhook`: the certification
// registry (registry/, docs/registry.md). Each action is a module of its own, loaded when asked.
import { EXIT } from '../exit-codes.ts';

const ACTIONS: Record<
  string,
  { summary: string; load: () => Promise<{ main(argv: string[]): Promise<number> }> }
> = {
  serve: {
    summary: 'start the registry (HTTPS: JSON API, pages, badges)',
    load: () => import('./registry-serve.ts'),
  },
  publisher: {
    summary: 'add a publisher (its signing keys) to the publishers file and print its token once',
    load: () => import('./registry-publisher.ts'),
  },
  publish: {
    summary: "send a run's signed bundle to a registry",
    load: () => import('./registry-publish.ts'),
  },
  'can-i-ship': {
    summary: 'exit 0 only if a version has a VERIFIED CONFORMANT run covering the scope asked',
    load: () => import('./registry-can-i-ship.ts'),
  },
  diff: {
    summary: 'the rules that regressed, recovered or changed between two versions',
    load: () => import('./registry-diff.ts'),
  },
  recheck: {
    summary: "run the kit against a deployment with the operator's keys: the registry's own run",
    load: () => import('./registry-recheck.ts'),
  },
  yank: {
    summary: 'withdraw a run: kept and shown as yanked, deciding nothing (audited)',
    load: () => import('./registry-yank.ts'),
  },
  'record-release': {
    summary: 'record the version that is live: its verdict on the page and badge',
    load: () => import('./registry-record-release.ts'),
  },
  retention: {
    summary: "remove old bundle files by policy, never a deciding run's (operator, audited)",
    load: () => import('./registry-retention.ts'),
  },
  audit: {
    summary: 'the audit list: yanks, releases and retention passes (operator)',
    load: () => import('./registry-audit.ts'),
  },
  webhook: {
    summary: 'add, list or remove webhooks (signed events), and read their deliveries',
    load: () => import('./registry-webhook.ts'),
  },
};

export const REGISTRY_HELP = `Usage: tenant-auth-conformance registry <action> [options]

A certification registry: vendors publish signed runs, the registry verifies each on arrival and
keeps it per deployment and version (PostgreSQL: embedded, or a server), and a pipeline asks it.

Actions:
${Object.entries(ACTIONS)
  .map(([name, action]) => `  ${name.padEnd(16)}${action.summary}`)
  .join('\n')}

Run \`tenant-auth-conformance registry <action> --help\` for an action's options; docs/registry.md
is the manual.`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h') {
    console.log(REGISTRY_HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const action = Object.hasOwn(ACTIONS, name) ? ACTIONS[name] : undefined;
  if (!action) {
    console.error(`Unknown registry action "${name}". Use one of: ${Object.keys(ACTIONS).join(', ')}.`);
    return EXIT.usage;
  }
  return (await action.load()).main(rest);
}
