// What `registry publish` sends and POST /api/v1/runs reads: one JSON object naming the deployment
// and the version, with the bundle's files by name, base64-encoded. The names are checked before
// anything is written: a file of a bundle is a plain name in the bundle's own directory.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalBase64 } from '../../conformance/attestation/dsse.ts';

export interface Upload {
  deployment: string;
  version: string;
  files: Map<string, Buffer>;
  /** The publisher says the deployment's target moved: a run of another base URL is accepted, and the move kept. */
  targetMoved: boolean;
  /** `registry recheck`: the run is the registry's own (an operator's token and key only). */
  checkedByRegistry: boolean;
}

/** A deployment's name: also a path segment of the pages and the badge. */
export const DEPLOYMENT_NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
/** A version label: semver (with pre-release and build) or a commit. */
export const VERSION_LABEL = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,127}$/;
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** More files than any bundle has (the reports, the badge, the statement, its envelope and key, SHA256SUMS). */
const MAX_FILES = 32;

export class UploadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UploadError';
  }
}

export function deploymentProblem(name: unknown): string | undefined {
  return typeof name === 'string' && DEPLOYMENT_NAME.test(name)
    ? undefined
    : `"deployment" must be a name of lower-case letters, digits and dashes (1 to 64, not starting or ending with a dash), e.g. acme-production; got ${describe(name)}.`;
}

export function versionProblem(label: unknown): string | undefined {
  return typeof label === 'string' && VERSION_LABEL.test(label)
    ? undefined
    : `"version" must be a version label (semver such as 1.4.2 or 2.0.0-rc.1+build.5, or a commit hash): letters, digits and . + _ - up to 128; got ${describe(label)}.`;
}

/** A short, safe rendering of what was sent, for a message. */
function describe(value: unknown): string {
  if (typeof value !== 'string') return value === undefined ? 'nothing' : `a ${typeof value}`;
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** Reads an upload's JSON text; throws UploadError naming what is wrong. */
export function parseUpload(text: string): Upload {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new UploadError(
      'The body is not JSON (cut short?): send {"deployment", "version", "files": {name: base64}} as registry publish does.',
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new UploadError('The body must be a JSON object {"deployment", "version", "files"}.');
  const { deployment, version, files, targetMoved, checkedBy } = data as Record<string, unknown>;
  if (targetMoved !== undefined && typeof targetMoved !== 'boolean')
    throw new UploadError('"targetMoved" must be true or false.');
  if (checkedBy !== undefined && checkedBy !== 'registry')
    throw new UploadError('"checkedBy" is "registry" (registry recheck) or absent (a publisher\'s run).');
  const problem = deploymentProblem(deployment) ?? versionProblem(version);
  if (problem) throw new UploadError(problem);
  if (typeof files !== 'object' || files === null || Array.isArray(files))
    throw new UploadError('"files" must be an object of the bundle\'s files: {"SHA256SUMS": "<base64>", …}.');
  const entries = Object.entries(files as Record<string, unknown>);
  if (entries.length > MAX_FILES)
    throw new UploadError(`"files" names ${entries.length} files; a bundle has at most ${MAX_FILES}.`);
  const decoded = new Map<string, Buffer>();
  for (const [name, content] of entries) {
    if (!FILE_NAME.test(name))
      throw new UploadError(
        `"files" names ${describe(name)}, which is not a file name of a bundle (no paths, no dot files).`,
      );
    const bytes = typeof content === 'string' ? canonicalBase64(content) : undefined;
    if (bytes === undefined && content !== '')
      throw new UploadError(`"files"."${name}" is not base64 (the file's bytes, encoded).`);
    decoded.set(name, bytes ?? Buffer.alloc(0));
  }
  return {
    deployment: deployment as string,
    version: version as string,
    files: decoded,
    targetMoved: targetMoved === true,
    checkedByRegistry: checkedBy === 'registry',
  };
}

/** The upload of a bundle directory (its top-level regular files). */
export function uploadOf(
  directory: string,
  deployment: string,
  version: string,
  targetMoved = false,
  checkedByRegistry = false,
): string {
  const files: Record<string, string> = {};
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isFile()) files[name] = readFileSync(path).toString('base64');
  }
  return JSON.stringify({
    deployment,
    version,
    files,
    ...(targetMoved ? { targetMoved } : {}),
    ...(checkedByRegistry ? { checkedBy: 'registry' } : {}),
  });
}
