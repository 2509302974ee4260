// The JSON API (docs/registry-openapi.json): publish a bundle, read runs and deployments, and ask
// can-i-ship and diff. Each handler reads the query, asks the store or ask/, and answers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseProtocols } from '../../conformance/settings.ts';
import { canIShip, type ShipAnswer, type ShipQuestion } from '../ask/can-i-ship.ts';
import { canIShipReplacingLive, NoLiveRelease, type ReplacingAnswer } from '../ask/replacing-live.ts';
import { diffVersions, DiffQuestionError } from '../ask/diff.ts';
import type { Database, Queryable } from '../database/database.ts';
import { authenticate, type Publisher, type PublisherSource } from '../publish/publishers.ts';
import { PublishRefused, receiveBundle, withUploadDirectory } from '../publish/receive.ts';
import type { BlobStore } from '../store/blobs.ts';
import { deploymentProblem, UploadError, versionProblem } from '../publish/upload.ts';
import { BundleTooLarge, DirectorySink } from '../publish/upload-files.ts';
import { UploadStreamParser } from '../publish/upload-stream.ts';
import { liveOf, liveRelease } from '../store/releases.ts';
import { deploymentsPage, versionsPage } from '../store/listing.ts';
import {
  deploymentExists,
  newestOfVersion,
  outcomesOf,
  runById,
  type StoreResult,
  type StoredRun,
} from '../store/runs.ts';
import { targetOf } from '../store/targets.ts';
import { streamBody } from './body.ts';
import { linkHeader, nextPath, pageRequest } from './paging.ts';
import type { UploadGate } from './upload-gate.ts';
import type { Webhooks } from '../webhooks/service.ts';
import { RequestError, sendJson } from './respond.ts';

export interface ApiContext {
  db: Database;
  publishers: PublisherSource;
  /** The largest bundle accepted, in bytes (decoded). */
  maxBundleBytes: number;
  /** Bounds the uploads in flight (--max-uploads). */
  uploads: UploadGate;
  /** Queues the events a publish or a yank caused, and delivers them. */
  webhooks: Webhooks;
  /**
   * Bounds the reads in flight other than can-i-ship and the badge (--pages-at-once): a crowd loading
   * pages waits here, holding no connection and no CPU, so a gate read never queues behind it.
   */
  pages: UploadGate;
  /** Where uploads are written as they arrive, each in a directory of its own. */
  uploadsDirectory: string;
  /** Where a bundle's large files are kept (the embedded database's registry); none: in their rows. */
  blobs?: BlobStore;
}

/** The JSON of a run: its facts and where its files are. */
export function runJson(run: StoredRun): Record<string, unknown> {
  return {
    ...run,
    links: {
      page: `/runs/${run.id}`,
      report: `/runs/${run.id}/files/conformance.html`,
      evidence: `/runs/${run.id}/files/exchanges.har`,
      bundle: `/api/v1/runs/${run.id}/files`,
    },
  };
}

export function authenticationError(state: 'missing' | 'malformed' | 'unknown'): RequestError {
  switch (state) {
    case 'missing':
      return new RequestError(401, 'missing_token', 'Send the publish token: Authorization: Bearer tacr_…');
    case 'malformed':
      return new RequestError(
        401,
        'malformed_token',
        'The Authorization header is not "Bearer tacr_" followed by 43 base64url characters: send the token registry publisher printed, whole.',
      );
    case 'unknown':
      return new RequestError(
        401,
        'unknown_token',
        "The token is not one of this registry's publishers: ask the registry's operator for one.",
      );
  }
}

export async function publish(
  context: ApiContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const authentication = authenticate(context.publishers.current(), request.headers.authorization);
  if (authentication.state !== 'ok') throw authenticationError(authentication.state);
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json')
    throw new RequestError(
      415,
      'unsupported_media_type',
      'Send the upload as Content-Type: application/json.',
    );
  // The body is read only once a slot is free: an upload waiting holds no memory and no disk.
  const release = await context.uploads.enter();
  if (release === undefined)
    throw new RequestError(
      503,
      'too_many_uploads',
      `The registry is receiving ${context.uploads.max} uploads, with ${context.uploads.maxWaiting} more waiting (--max-uploads): publish again after the Retry-After seconds. Nothing was stored.`,
    );
  try {
    await receive(context, authentication.publisher, request, response);
  } finally {
    release();
  }
}

async function receive(
  context: ApiContext,
  publisher: Publisher,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  // base64 makes the files a third larger; the JSON around them is small.
  const limit = Math.ceil((context.maxBundleBytes * 4) / 3) + 64 * 1024;
  const tooLarge = (): RequestError =>
    new RequestError(
      413,
      'bundle_too_large',
      `The bundle is larger than this registry's bound of ${context.maxBundleBytes} bytes (--max-bundle-bytes): nothing was stored.`,
    );
  const token = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const { result, upload } = await withUploadDirectory(context.uploadsDirectory, async (directory) => {
    // The body goes to disk as it arrives, each file decoded on the way: the upload is never whole
    // in memory, and the directory is removed however the upload ends.
    const sink = new DirectorySink(directory, context.maxBundleBytes, token);
    const parser = new UploadStreamParser(sink);
    let head;
    try {
      await streamBody(request, limit, tooLarge, (chunk) => parser.write(chunk));
      head = parser.end();
    } catch (error) {
      sink.abandon();
      if (error instanceof BundleTooLarge) throw tooLarge();
      if (error instanceof UploadError)
        throw new RequestError(400, 'bad_upload', `${error.message} Nothing was stored.`);
      throw error;
    }
    const received = { ...head, directory, files: sink.files(), secretIn: sink.secretIn };
    try {
      const stored = await context.webhooks.around<StoreResult>(
        head.deployment,
        head.version,
        (queue) => receiveBundle(context.db, publisher, received, context.blobs, queue),
        (run) => (run.stored === 'new' ? { kind: 'published', run: run.run } : undefined),
        publisher.name,
      );
      return { result: stored, upload: head };
    } catch (error) {
      if (error instanceof PublishRefused) throw new RequestError(error.status, error.code, error.message);
      throw error;
    }
  });
  if (
    result.stored === 'duplicate' &&
    (result.run.version !== upload.version || result.run.deployment !== upload.deployment)
  )
    throw new RequestError(
      409,
      'bundle_already_published',
      `This bundle is already run ${result.run.id}, published as ${result.run.deployment} ${result.run.version}: a run has one version. Nothing was changed.`,
    );
  // A run that started before the newest stored run of its version is kept, but never decides.
  const newest = await newestOfVersion(context.db, result.run.deployment, result.run.version);
  const decides = newest === undefined || newest.id === result.run.id;
  sendJson(
    response,
    result.stored === 'new' ? 201 : 200,
    {
      stored: result.stored,
      decides,
      ...(decides || !newest
        ? {}
        : {
            note: `Run ${result.run.id} started at ${result.run.startedAt}, before run ${newest.id} of ${result.run.deployment} ${result.run.version} (started ${newest.startedAt}): it is stored, and never decides; run ${newest.id} does.`,
          }),
      run: runJson(result.run),
    },
    {
      Location: `/api/v1/runs/${result.run.id}`,
    },
  );
}

function required(query: URLSearchParams, name: string): string {
  const value = query.get(name);
  if (value === null || value === '')
    throw new RequestError(400, 'missing_parameter', `Give ${name}=… in the query.`);
  return value;
}

function checkedName(kind: 'deployment' | 'version', value: string): string {
  const problem = kind === 'deployment' ? deploymentProblem(value) : versionProblem(value);
  if (problem) throw new RequestError(400, `bad_${kind}`, problem);
  return value;
}

export async function canIShipAnswer(
  gate: Queryable,
  query: URLSearchParams,
  response: ServerResponse,
): Promise<void> {
  const deployment = checkedName('deployment', required(query, 'deployment'));
  const version = checkedName('version', required(query, 'version'));
  const profileText = query.get('profile') ?? undefined;
  if (profileText !== undefined && profileText !== 'default' && profileText !== 'strict')
    throw new RequestError(
      400,
      'bad_profile',
      `profile must be default or strict; got ${JSON.stringify(profileText.slice(0, 40))}.`,
    );
  const protocolsText = query.get('protocols') ?? undefined;
  let protocols;
  if (protocolsText !== undefined) {
    const parsed = parseProtocols(protocolsText.slice(0, 40));
    if ('error' in parsed) throw new RequestError(400, 'bad_protocols', `protocols: ${parsed.error}.`);
    protocols = parsed.protocols;
  }
  const noWarnings = query.get('noWarnings') ?? undefined;
  if (noWarnings !== undefined && noWarnings !== 'true' && noWarnings !== 'false')
    throw new RequestError(400, 'bad_no_warnings', 'noWarnings must be true or false.');
  const replacingLive = query.get('replacingLive') ?? undefined;
  if (replacingLive !== undefined && replacingLive !== 'true' && replacingLive !== 'false')
    throw new RequestError(400, 'bad_replacing_live', 'replacingLive must be true or false.');
  const checkedBy = query.get('checkedBy') ?? undefined;
  if (checkedBy !== undefined && checkedBy !== 'registry')
    throw new RequestError(
      400,
      'bad_checked_by',
      `checkedBy must be registry (only the runs the registry checked itself); got ${JSON.stringify(checkedBy.slice(0, 40))}.`,
    );
  const question: ShipQuestion = {
    deployment,
    version,
    noWarnings: noWarnings === 'true',
    ...(checkedBy === 'registry' ? { checkedBy } : {}),
    ...(profileText ? { profile: profileText } : {}),
    ...(protocols ? { protocols } : {}),
  };
  let answer: ShipAnswer & { live?: ReplacingAnswer['live'] };
  try {
    answer =
      replacingLive === 'true' ? await canIShipReplacingLive(gate, question) : await canIShip(gate, question);
  } catch (error) {
    if (error instanceof NoLiveRelease) throw new RequestError(404, 'no_live_release', error.message);
    throw error;
  }
  sendJson(response, 200, {
    ship: answer.ship,
    reason: answer.reason,
    ...(answer.run ? { run: runJson(answer.run) } : {}),
    notCovering: answer.notCovering,
    ...(answer.live ? { live: answer.live } : {}),
  });
}

export async function diffAnswer(
  context: ApiContext,
  query: URLSearchParams,
  response: ServerResponse,
): Promise<void> {
  const deployment = checkedName('deployment', required(query, 'deployment'));
  // Without from, the live version (the newest release recorded) is the baseline.
  const live = query.get('from') ? undefined : await liveRelease(context.db, deployment);
  if (!query.get('from') && !live)
    throw new RequestError(
      400,
      'missing_parameter',
      `Give from=… in the query: no release of "${deployment}" is recorded to compare with by default.`,
    );
  const from = checkedName('version', live?.version ?? required(query, 'from'));
  const to = checkedName('version', required(query, 'to'));
  try {
    sendJson(response, 200, await diffVersions(context.db, deployment, from, to));
  } catch (error) {
    if (error instanceof DiffQuestionError) throw new RequestError(404, 'no_such_version', error.message);
    throw error;
  }
}

/** The deployments, a page at a time: each certified one with its run, the others by name. */
export async function certifiedList(
  context: ApiContext,
  query: URLSearchParams,
  response: ServerResponse,
): Promise<void> {
  const request = pageRequest('deployments', query);
  const listed = await deploymentsPage(context.db, request);
  const next = nextPath('/api/v1/deployments', 'deployments', request, listed.next);
  sendJson(
    response,
    200,
    {
      certified: listed.deployments.flatMap(({ certified }) =>
        certified ? [{ ...runJson(certified), badge: `/badge/${certified.deployment}.svg` }] : [],
      ),
      uncertified: listed.deployments.filter(({ certified }) => !certified).map(({ name }) => name),
      next: next ?? null,
    },
    linkHeader(next),
  );
}

/** A deployment's history, a page of versions at a time, with every run of each. */
export async function deploymentHistory(
  context: ApiContext,
  name: string,
  query: URLSearchParams,
  response: ServerResponse,
): Promise<void> {
  checkedName('deployment', name);
  const request = pageRequest('versions', query);
  if (!(await deploymentExists(context.db, name)))
    throw new RequestError(404, 'no_such_deployment', `The registry has no deployment named "${name}".`);
  const listed = await versionsPage(context.db, name, request);
  const { target, moves } = await targetOf(context.db, name);
  const live = await liveOf(context.db, name);
  const next = nextPath(`/api/v1/deployments/${name}`, 'versions', request, listed.next);
  sendJson(
    response,
    200,
    {
      deployment: name,
      badge: `/badge/${name}.svg`,
      ...(target ? { target } : {}),
      ...(live ? { live: { ...live.release, ...(live.run ? { run: runJson(live.run) } : {}) } } : {}),
      targetMoves: moves,
      versions: listed.versions,
      runs: listed.runs.map(runJson),
      next: next ?? null,
    },
    linkHeader(next),
  );
}

export async function runDetail(context: ApiContext, id: number, response: ServerResponse): Promise<void> {
  const run = await runById(context.db, id);
  if (!run) throw new RequestError(404, 'no_such_run', `The registry has no run ${id}.`);
  const outcomes = await outcomesOf(context.db, [id]);
  sendJson(response, 200, {
    run: runJson(run),
    rules: outcomes.map(({ ruleId, level, protocol, verdict }) => ({ ruleId, level, protocol, verdict })),
  });
}
