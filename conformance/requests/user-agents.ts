// What the suite's requests say they are. A fixed User-Agent that names the suite lets a
// deployment tell the suite from its clients and answer each differently (a cloaking front), so
// every request carries the User-Agent of a common client: curl, a browser, Python's requests,
// Go's net/http. Which one is a function of the request alone — of what sent it (a rule's id, the
// learning, the preflight) and of its index among that sender's requests — never of a counter of
// the process: which worker ran which rules first must not change which request says what, or a
// WAF refusing one agent would give failures that do not reproduce. `--user-agent` sets one for
// every request instead.
// Whatever it is, it is a field of the request's record, so the HAR shows it byte for byte. No
// black-box run proves a deployment does not tell the suite apart by another trait (its address,
// its timing): docs/certification.md says what does.
import { createHash } from 'node:crypto';
import { runSettings, type RunSettings } from '../settings.ts';

/** User-Agents of common clients, as they send them. */
export const COMMON_USER_AGENTS: readonly string[] = [
  'curl/8.5.0',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'python-requests/2.32.3',
  'Go-http-client/1.1',
];

/** What sends the requests from now on in this process, and how many it has sent. */
let sender = 'run';
let sentBy = 0;

/**
 * The requests from now on are `name`'s (a rule's id, `learning`, `preflight`): their agents are
 * picked from their own index, starting at 0. A worker runs one test at a time, so the sender is
 * the test that runs.
 */
export function userAgentsFor(name: string): void {
  sender = name;
  sentBy = 0;
}

/** The User-Agent of the next request: `--user-agent`'s, else the one its sender and index pick. */
export function nextUserAgent(settings: Pick<RunSettings, 'userAgent'> = runSettings()): string {
  if (settings.userAgent !== undefined) return settings.userAgent;
  const agent = userAgentOf(sender, sentBy);
  sentBy += 1;
  return agent;
}

/** The common client's User-Agent for the `index`th request of `name`: the same in every run. */
export function userAgentOf(name: string, index: number): string {
  const digest = createHash('sha256').update(`${name}#${index}`).digest();
  return COMMON_USER_AGENTS[digest.readUInt32BE(0) % COMMON_USER_AGENTS.length] ?? 'curl/8.5.0';
}
