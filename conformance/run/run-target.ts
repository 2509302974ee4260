// The target of this run, in two steps. Declared in one place, the config (evaluated in each
// Playwright process that loads it: conformanceProjects(), from a target file or the embedded
// one), and handed to the suite as the `declaredTarget` option (conformance/run/test.ts), and to
// the set-up project and the reporter through the config. Bound to its keys (and, embedded, to the
// server's ports) where they are: in the environment of the process that needs them, after the
// set-up project has minted any. merge-reports declares none: what it renders was redacted when
// it was recorded.
import { trustSources } from '../requests/trust-sources.ts';
import { onReferencePorts } from '../deployment/embedded-target.ts';
import { PROTOCOL_NAME, protocolsOfRun } from '../requests/protocols.ts';
import type { RunMetadata } from '../report/run-metadata.ts';
import { runSettings, type RunSettings } from '../settings.ts';
import { withCredentials, type ResolvedTarget, type TargetDeclaration } from '../deployment/target.ts';
import { type Environment } from '../env.ts';
import { plannedKeys } from '../deployment/key-minting.ts';

/** The declared target with its keys and, for the embedded server, its ports, from `env`. */
export function bindTarget(declared: TargetDeclaration, env: Environment): ResolvedTarget {
  const target = withCredentials(declared, env);
  return declared.mode === 'embedded' ? onReferencePorts(target, env) : target;
}

/** The declared target a config handed to Playwright's projects (every project of a run has it). */
export function declaredTargetOf(project: { use?: object } | undefined): TargetDeclaration | undefined {
  return (project?.use as { declaredTarget?: TargetDeclaration } | undefined)?.declaredTarget;
}

/** What the reports say of the run's target and settings (the config's metadata). */
export function runMetadataOf(
  declared: TargetDeclaration,
  failOnIncomplete: boolean,
  env: Environment,
  settings: Pick<RunSettings, 'protocols'> = runSettings(),
): RunMetadata {
  // Without a CA file of the target's, a CA the user added to Node is trusted all the same: the
  // report names it, so that verify warns of a private CA rather than print "the system's CAs".
  const caFile = declared.caFile ?? (env.NODE_EXTRA_CA_CERTS || undefined);
  const trust = trustSources(env);
  return {
    target: {
      name: declared.name,
      mode: declared.mode,
      // The embedded server's port is chosen when it starts, after the config is read.
      baseUrl: onFreePort(declared, declared.baseUrl),
      // Where the plain-HTTP rules probed, declared or by default: a refused connection passes
      // them, so a certifier must see it (verify warns when it is not the base URL's host, port 80).
      plainHttpBaseUrl: onFreePort(declared, declared.plainHttpBaseUrl),
      // For the curl commands of the reports (--cacert, --resolve).
      ...(caFile ? { caFile } : {}),
      ...(Object.keys(declared.hosts).length > 0 ? { hosts: { ...declared.hosts } } : {}),
      ...(trust.length > 0 ? { trust } : {}),
      // Known before the set-up mints them: which keys the kit answers for (the revoked one above all).
      ...(declared.keyMinting ? { keysMinted: plannedKeys(declared).map((key) => key.credential) } : {}),
    },
    profile: declared.profile,
    failOnIncomplete,
    protocols: protocolsOfRun(settings).map((protocol) => PROTOCOL_NAME[protocol]),
  };
}

function onFreePort(declared: TargetDeclaration, url: string): string {
  return declared.mode === 'embedded' ? url.replace(/:\d+\//, ':{free port}/') : url;
}
