// The set-up project's last step (project-setup.ts): what the suite learns of the tenants (their
// data, pages, cursors: judging/knowledge.ts) is learned here, once per run, and left in the run's
// state directory for every rule worker (variant-world.ts reads it). Playwright starts a new worker
// after each failed test; learning in each worker sent the lists' walks again per failure, so a
// broken deployment got several times the requests of a working one. The learning exchanges are
// attached to the set-up test, once: the reporter puts them in exchanges.har as the learning's, and
// a keyless request served data while learning fails AUTH-MISSING-HEADER from here.
import type { APIRequest, TestInfo } from '@playwright/test';
import { knowledgeRecord } from '../judging/knowledge-record.ts';
import { PROTOCOL_NAME, protocolsOfRun } from '../requests/protocols.ts';
import { ANNOTATION } from './annotations.ts';
import { writeRunKnowledge } from './project-state.ts';
import { attachLearningOnce } from './rule-attachments.ts';
import { VariantWorld, type RunOptions } from './variant-world.ts';

/** Learns the tenants over the run's first protocol and leaves what it learned for the rule workers. */
export async function learnOnceForRun(
  request: APIRequest,
  options: Omit<RunOptions, 'protocol'>,
  testInfo: TestInfo,
): Promise<void> {
  if (!options.runSettings) throw new Error('No runSettings option: run the suite with its config.');
  const protocol = protocolsOfRun(options.runSettings)[0] ?? 'h1';
  const world = await VariantWorld.open({ ...options, protocol }, request);
  try {
    // The protocol the learning spoke: a learning leak is a failure of the rule over it (reporter.ts).
    testInfo.annotations.push({ type: ANNOTATION.protocol, description: PROTOCOL_NAME[protocol] });
    const knowledge = await world.knowledge;
    await attachLearningOnce(testInfo, world.learningExchanges, world.namer, knowledge);
    const { baseUrl, otherTenantBaseUrl, sandboxBaseUrl, credentialVariables } = world.target;
    await testInfo.attach(ANNOTATION.runTarget, {
      body: JSON.stringify({ baseUrl, otherTenantBaseUrl, sandboxBaseUrl, credentialVariables }),
      contentType: 'application/json',
    });
    writeRunKnowledge(world.knowledgeKey, knowledgeRecord(knowledge));
  } finally {
    await world.close();
  }
}
