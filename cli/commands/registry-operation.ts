// What `registry yank`, `record-release`, `retention` and `audit` share: a token (the publisher's or
// the operator's, from --token-file or the environment, never an argument) and one request, whose
// refusal is exit 1 with the registry's own message, and whose unreachable registry is exit 3.
import { errorMessage, readToken, TOKEN_VARIABLE, type RegistryAnswer } from '../../registry/client.ts';
import { EXIT } from '../exit-codes.ts';
import { withRegistry } from './registry-publish.ts';

export const OPERATION_EXIT_CODES = `Exit codes:
  0  done
  1  refused: the message says why (not your deployment, not the operator, no such run…)
  2  usage error
  3  the registry cannot be reached, or failed`;

/** Sends one operation; `done` prints what the registry answered when it succeeded. */
export async function operation(
  values: {
    registry?: string | undefined;
    'ca-file'?: string | undefined;
    'token-file'?: string | undefined;
  },
  request: { method: 'GET' | 'POST'; path: string; body?: unknown },
  done: (json: unknown) => void,
): Promise<number> {
  const token = readToken(values['token-file']);
  if (token === undefined) {
    console.error(`Give a token: --token-file FILE or $${TOKEN_VARIABLE}.`);
    return EXIT.usage;
  }
  return withRegistry(values, token, async (client) => {
    const answer: RegistryAnswer =
      request.method === 'GET'
        ? await client.get(request.path)
        : await client.post(request.path, JSON.stringify(request.body ?? {}));
    if (answer.status >= 200 && answer.status < 300) {
      done(answer.json);
      return EXIT.ok;
    }
    console.error(`Refused: ${errorMessage(answer)}`);
    return answer.status >= 500 ? EXIT.setup : EXIT.notConformant;
  });
}
