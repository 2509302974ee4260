// One entry of the client journal as it is held: an object of one fixed shape, made once per slot
// of a tenant's ring and overwritten whole by each entry written into that slot (journal.ts), so
// that recording a request allocates no entry once the ring has filled. The admin API's answer is
// made from it when the journal is read (`slotAnswer`): the time as text, an unknown key's
// fingerprint from its digest, no field that is not set, the fields in the order of their kind.
import type { JournalEntry } from '../../schemas/generated/journal.ts';
import type { Environment } from '../http/hosts.ts';

export class JournalSlot {
  /** Which write this is: a late update (a body's tenant fields) applies only to its own write. */
  write = 0;
  timeMs = 0;
  transport: JournalEntry['transport'] = 'https';
  protocol: JournalEntry['protocol'] = undefined;
  tenant: string | undefined = undefined;
  environment: Environment | undefined = undefined;
  host: JournalEntry['host'] = 'missing';
  sni: JournalEntry['sni'] = 'missing';
  /** On an SNI mismatch only: the two names the client sent (journal.ts). */
  sniName: string | undefined = undefined;
  hostName: string | undefined = undefined;
  method: string | undefined = undefined;
  path: string | undefined = undefined;
  status: number | undefined = undefined;
  errorCode: string | undefined = undefined;
  userAgent: string | undefined = undefined;
  authorization: JournalEntry['authorization'] = 'missing';
  key: string | undefined = undefined;
  /** An unknown key's SHA-256 (key-naming.ts): its fingerprint is made from it when read. */
  keyDigest: string | undefined = undefined;
  keyEnvironment: Environment | undefined = undefined;
  keyRevoked: boolean | undefined = undefined;
  contentType: JournalEntry['contentType'] = 'missing';
  accept: JournalEntry['accept'] = 'missing';
  hasBody = false;
  urlCredentials: string[] | undefined = undefined;
  tenantFields: string[] | undefined = undefined;
  retryAfter: number | undefined = undefined;
  idempotencyKey: true | undefined = undefined;
  behaviour: string | undefined = undefined;
  cut: JournalEntry['cut'] = undefined;
  refused: true | undefined = undefined;
}

/** The answer's field names, each read from the slot's field of the same name but one. */
type AnswerField = Exclude<keyof JournalEntry, 'time'>;

/**
 * The order of an entry's fields in the answer, by kind: as the entries were first written (an
 * API request's fields, a plain-HTTP request's with what was learnt of it after, a bare TLS
 * connection's), which the admin API has always answered.
 */
const SCOPE: readonly AnswerField[] = ['tenant', 'environment'];
const REQUEST: readonly AnswerField[] = ['method', 'path', 'status', 'errorCode', 'userAgent'];
const KEY: readonly AnswerField[] = ['key', 'keyFingerprint', 'keyEnvironment', 'keyRevoked'];
const MEDIA: readonly AnswerField[] = ['contentType', 'accept', 'hasBody'];
/** What a client does next depends on: how long to wait, whether a retry is safe, who answered. */
const ANSWER: readonly AnswerField[] = ['retryAfter', 'idempotencyKey', 'behaviour', 'cut', 'refused'];
const FIELD_ORDER: Record<JournalEntry['transport'], readonly AnswerField[]> = {
  https: [
    'transport',
    'protocol',
    ...SCOPE,
    'host',
    'sni',
    'sniName',
    'hostName',
    ...REQUEST,
    'authorization',
    ...KEY,
    ...MEDIA,
    'urlCredentials',
    'tenantFields',
    ...ANSWER,
  ],
  http: [
    'transport',
    'protocol',
    'host',
    'sni',
    ...REQUEST,
    'authorization',
    ...MEDIA,
    'tenantFields',
    'urlCredentials',
    ...SCOPE,
    ...KEY,
  ],
  tls: ['transport', 'host', 'sni', 'authorization', ...MEDIA],
};

/** @param fingerprint an unknown key's fingerprint, from its digest. */
export function slotAnswer(slot: JournalSlot, fingerprint: (keyDigest: string) => string): JournalEntry {
  const answer: Record<string, unknown> = { time: new Date(slot.timeMs).toISOString() };
  for (const name of FIELD_ORDER[slot.transport]) {
    const value =
      name === 'keyFingerprint'
        ? slot.keyDigest === undefined
          ? undefined
          : fingerprint(slot.keyDigest)
        : slot[name];
    if (value !== undefined) answer[name] = value;
  }
  return answer as unknown as JournalEntry;
}

const BLANK = new JournalSlot();

/** Every field of `slot` back to its initial value but its write's number: for an entry that sets few. */
export function clearSlot(slot: JournalSlot): void {
  const write = slot.write;
  Object.assign(slot, BLANK);
  slot.write = write;
}
