// The pages' routes: /, /deployments/NAME, /runs/ID and a run's files. A run's files are served as
// published, under `Content-Security-Policy: sandbox`, so that a report's HTML runs in an origin of
// its own and never in the registry's.
import type { ServerResponse } from 'node:http';
import { extname } from 'node:path';
import type { Queryable } from '../database/database.ts';
import { nextPath, pageRequest } from '../http/paging.ts';
import { RequestError, send, sendHtml, sendStream } from '../http/respond.ts';
import { deploymentProblem } from '../publish/upload.ts';
import { liveOf } from '../store/releases.ts';
import { deploymentsPage, versionsPage } from '../store/listing.ts';
import type { BlobStore } from '../store/blobs.ts';
import { bundleFile, bundleFileNames } from '../store/bundle-files.ts';
import { deploymentExists, outcomesOf, runById } from '../store/runs.ts';
import { targetOf } from '../store/targets.ts';
import { certifiedPage, deploymentPage, runPage } from './pages.ts';
import { deliveriesPage as deliveriesOf } from '../webhooks/store.ts';
import { deliveriesPage } from './deliveries-page.ts';

const FILE_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.har': 'application/json',
  '.md': 'text/markdown; charset=utf-8',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
};

function runNumber(text: string | undefined): number {
  if (text === undefined || !/^[1-9][0-9]{0,9}$/.test(text) || Number(text) > 2_147_483_647)
    throw new RequestError(404, 'no_such_run', 'Not a run number.');
  return Number(text);
}

/** Why a run has no files to serve: no such run, or the retention policy removed them (410). */
export async function noFiles(db: Queryable, id: number): Promise<RequestError> {
  const run = await runById(db, id);
  if (!run) return new RequestError(404, 'no_such_run', `The registry has no run ${id}.`);
  return new RequestError(
    410,
    'files_removed',
    `Run ${id}'s bundle files were removed by the retention policy at ${run.filesRemovedAt ?? 'an unknown time'}; its verdict and rule outcomes are kept (/api/v1/runs/${id}).`,
  );
}

/** A page of a deployment the registry has, else a 404 naming why. */
async function knownDeployment(db: Queryable, name: string): Promise<void> {
  const problem = deploymentProblem(name);
  if (problem || !(await deploymentExists(db, name)))
    throw new RequestError(
      404,
      'no_such_deployment',
      problem ?? `The registry has no deployment named "${name}".`,
    );
}

/** Answers a page's path; false when the path is no page's. */
export async function siteRoutes(
  db: Queryable,
  /** Where the files stored as blobs are (the embedded database's registry); none: every file is in its row. */
  blobs: BlobStore | undefined,
  segments: readonly string[],
  query: URLSearchParams,
  response: ServerResponse,
): Promise<boolean> {
  const [first, second, third, fourth] = segments;
  if (segments.length === 0) {
    const request = pageRequest('deployments', query);
    const listed = await deploymentsPage(db, request);
    sendHtml(
      response,
      200,
      certifiedPage(
        listed.deployments.flatMap(({ certified }) => (certified ? [certified] : [])),
        listed.deployments.filter(({ certified }) => !certified).map(({ name }) => name),
        {
          next: nextPath('/', 'deployments', request, listed.next),
          first: request.after !== undefined ? '/' : undefined,
        },
      ),
    );
    return true;
  }
  if (first === 'deployments' && segments.length === 2 && second !== undefined) {
    await knownDeployment(db, second);
    const request = pageRequest('versions', query);
    const listed = await versionsPage(db, second, request);
    const path = `/deployments/${second}`;
    sendHtml(
      response,
      200,
      deploymentPage(
        second,
        listed.runs,
        await outcomesOf(
          db,
          listed.runs.map((run) => run.id),
        ),
        (await targetOf(db, second)).moves,
        await liveOf(db, second),
        {
          versions: listed.versions,
          next: nextPath(path, 'versions', request, listed.next),
          first: request.after !== undefined ? path : undefined,
        },
      ),
    );
    return true;
  }
  if (first === 'deployments' && segments.length === 3 && third === 'deliveries' && second !== undefined) {
    await knownDeployment(db, second);
    const request = pageRequest('deliveries', query);
    const listed = await deliveriesOf(db, { deployment: second }, request);
    const path = `/deployments/${second}/deliveries`;
    sendHtml(
      response,
      200,
      deliveriesPage(second, listed.deliveries, {
        next: nextPath(path, 'deliveries', request, listed.next),
        first: request.after !== undefined ? path : undefined,
      }),
    );
    return true;
  }
  if (first === 'runs' && segments.length === 2) {
    const id = runNumber(second);
    const run = await runById(db, id);
    if (!run) throw new RequestError(404, 'no_such_run', `The registry has no run ${id}.`);
    sendHtml(response, 200, runPage(run, await outcomesOf(db, [id]), await bundleFileNames(db, id)));
    return true;
  }
  if (first === 'runs' && segments.length === 4 && third === 'files' && fourth !== undefined) {
    const id = runNumber(second);
    const stored = await bundleFile(db, id, fourth);
    if (!stored && (await runById(db, id))?.filesRemovedAt) throw await noFiles(db, id);
    if (!stored)
      throw new RequestError(
        404,
        'no_such_file',
        `Run ${id} has no file named ${JSON.stringify(fourth.slice(0, 100))}.`,
      );
    const type = FILE_TYPES[extname(fourth)] ?? 'text/plain; charset=utf-8';
    const headers = {
      'Content-Security-Policy': 'sandbox',
      'Cache-Control': 'public, max-age=31536000, immutable',
    };
    if ('content' in stored) send(response, 200, type, stored.content, headers);
    else {
      // A row that says blob on a registry started without its blob store is a misconfiguration.
      if (!blobs) throw new Error(`run ${id}'s ${fourth} is a blob, and this registry has no blob store`);
      sendStream(response, 200, type, stored.size, await blobs.read(stored.blob, stored.size), headers);
    }
    return true;
  }
  return false;
}
