// What the suite's requests say they are. A fixed User-Agent that names the suite lets a
// deployment tell the suite from its clients and answer each differently (a cloaking front), so
// every request carries the User-Agent of a common client, in turn across the run: curl, a
// browser, Python's requests, Go's net/http. `--user-agent` sets one for every request instead.
// Whatever it is, it is a field of the request's record, so the HAR shows it byte for byte. No
// black-box run proves a deployment does not tell the suite apart by another trait (its address,
// its timing): docs/certification.md says what does.
import { runSettings, type RunSettings } from '../settings.ts';

/** User-Agents of common clients, as they send them. */
export const COMMON_USER_AGENTS: readonly string[] = [
  'curl/8.5.0',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'python-requests/2.32.3',
  'Go-http-client/1.1',
];

let sent = 0;

/** The User-Agent of the next request: `--user-agent`'s, else the next common client's in turn. */
export function nextUserAgent(settings: Pick<RunSettings, 'userAgent'> = runSettings()): string {
  if (settings.userAgent !== undefined) return settings.userAgent;
  const agent = COMMON_USER_AGENTS[sent % COMMON_USER_AGENTS.length] ?? 'curl/8.5.0';
  sent += 1;
  return agent;
}
