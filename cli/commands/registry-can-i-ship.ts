// `registry can-i-ship --deployment NAME --version V [--profile P] [--protocols h1,h2]`: a release
// gate. Exit 0 only when the registry answers yes; otherwise 1 and the sentence that says why not.
import { parseProtocols } from '../../conformance/settings.ts';
import { errorMessage, readToken } from '../../registry/client.ts';
import { commandArguments } from '../arguments.ts';
import { EXIT } from '../exit-codes.ts';
import {
  REGISTRY_CLIENT_FLAGS,
  REGISTRY_CLIENT_OPTIONS,
  registryProblems,
  withRegistry,
} from './registry-publish.ts';

const HELP = `Usage: tenant-auth-conformance registry can-i-ship --registry URL --deployment NAME --version V
                                                   [--profile default|strict] [--protocols h1,h2] [--no-warnings]
                                                   [--replacing-live] [--checked-by registry] [--json]

Asks the registry whether this version may ship: yes only when the latest stored run of it that
covers the question — the profile (a strict run answers for both), the protocols (by default every
protocol the target offered), every rule of the catalog — is VERIFIED and CONFORMANT. Latest is
by the run's own signed start time. Every warning verify prints of that run is in the answer.

Options:
  --deployment NAME, --version V
  --profile P           default or strict (default: default)
  --protocols LIST      h1, h2 or h1,h2 (default: every protocol the target offered)
  --no-warnings         answer no when verify warns of the deciding run (a host map to a loopback
                        or private address, trust from a private CA, a self-signed certificate…)
  --replacing-live      ask about V as the version that would replace the live one (registry
                        record-release): no also when a rule regressed from the live version
  --checked-by registry answer only from the runs the registry checked itself (registry recheck:
                        the kit run against the deployment with the operator's keys, signed by the
                        registry's key); a publisher's own runs do not count
  --json                print the registry's answer as JSON
${REGISTRY_CLIENT_OPTIONS} (a token is needed only with --private-reads)
  --help                print this help

Exit codes:
  0  yes: a VERIFIED CONFORMANT run covers the question
  1  no: the first line says why (no run, a run that does not cover it, not CONFORMANT, a
     warning under --no-warnings)
  2  usage error
  3  the registry cannot be reached, or failed`;

export async function main(argv: string[]): Promise<number> {
  const parsed = commandArguments(
    argv,
    {
      ...REGISTRY_CLIENT_FLAGS,
      deployment: { type: 'string' },
      version: { type: 'string' },
      profile: { type: 'string' },
      protocols: { type: 'string' },
      json: { type: 'boolean' },
      'no-warnings': { type: 'boolean' },
      'replacing-live': { type: 'boolean' },
      'checked-by': { type: 'string' },
    },
    HELP,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const problems = [
    ...registryProblems(values.registry),
    ...(values.deployment === undefined ? ['Give --deployment NAME.'] : []),
    ...(values.version === undefined ? ['Give --version V.'] : []),
    ...(values.profile !== undefined && values.profile !== 'default' && values.profile !== 'strict'
      ? [`--profile: "${values.profile}" is neither default nor strict.`]
      : []),
    ...(values['checked-by'] !== undefined && values['checked-by'] !== 'registry'
      ? [`--checked-by: "${values['checked-by']}" is not "registry", the one checker it selects.`]
      : []),
  ];
  if (values.protocols !== undefined) {
    const protocols = parseProtocols(values.protocols);
    if ('error' in protocols) problems.push(`--protocols: ${protocols.error}.`);
  }
  if (problems.length > 0) {
    console.error(`${problems.join('\n')}\n\n${HELP}`);
    return EXIT.usage;
  }
  const query = new URLSearchParams({ deployment: values.deployment ?? '', version: values.version ?? '' });
  if (values.profile !== undefined) query.set('profile', values.profile);
  if (values.protocols !== undefined) query.set('protocols', values.protocols);
  if (values['no-warnings'] === true) query.set('noWarnings', 'true');
  if (values['replacing-live'] === true) query.set('replacingLive', 'true');
  if (values['checked-by'] !== undefined) query.set('checkedBy', values['checked-by']);
  return withRegistry(values, readToken(values['token-file']), async (client) => {
    const answer = await client.get(`/api/v1/can-i-ship?${query.toString()}`);
    if (answer.status !== 200) {
      console.error(errorMessage(answer));
      return answer.status >= 500 ? EXIT.setup : EXIT.usage;
    }
    const { ship, reason } = answer.json as { ship: boolean; reason: string };
    if (values.json === true) console.log(JSON.stringify(answer.json, null, 2));
    else (ship ? console.log : console.error)(reason);
    return ship ? EXIT.ok : EXIT.notConformant;
  });
}
