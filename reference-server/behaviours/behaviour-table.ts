// The behaviours a client's tests add to the reference server (schemas/behaviour.schema.json): a
// stage after the API's pipeline, which answers a request it matches in place of the reference's
// answer — an error, the same answer later, a connection or stream cut — or changes a key after its
// Nth request. The table decides which behaviour takes a request and keeps count; the front door
// (front-door/behaviour-stage.ts) acts on it. With no behaviour the stage costs one length check.
import type { Behaviour } from '../../schemas/generated/behaviour.ts';
import type { JsonAnswer } from '../http/errors.ts';
import type { RequestFacts } from '../http/request-facts.ts';
import { pathOf } from '../http/request-target.ts';
import type { TenantData } from '../store/tenant-data.ts';

export type { Behaviour } from '../../schemas/generated/behaviour.ts';

/** A behaviour as added, with what it has done so far. */
export interface BehaviourState {
  id: string;
  name: string;
  behaviour: Behaviour;
  /** Requests it has matched. */
  matched: number;
  /** Requests it will still match; null: every one. */
  remaining: number | null;
  /** A `rotate-key` behaviour that has rotated its key: the new key (the admin API's CreatedKey). */
  replacement?: { id: string; secret: string };
}

/** How a request the stage took is answered. */
export type BehaviourAction =
  | { kind: 'answer'; answer: JsonAnswer | undefined; delayMs: number }
  | { kind: 'cut'; cut: 'reset' | 'goaway' | 'rst-stream'; refused: boolean; delayMs: number };

export interface TakenRequest {
  /** The name the journal records. */
  name: string;
  /** undefined: the reference's own answer, at once (a key behaviour only counted it). */
  action: BehaviourAction | undefined;
}

export class BehaviourTable {
  readonly #data: TenantData;
  #active: BehaviourState[] = [];
  #added = 0;

  constructor(data: TenantData) {
    this.#data = data;
  }

  get size(): number {
    return this.#active.length;
  }

  /** Adds behaviours valid by the schema; a later call's take precedence over an earlier one's. */
  add(behaviours: readonly Behaviour[]): BehaviourState[] {
    const added = behaviours.map((behaviour): BehaviourState => {
      this.#added += 1;
      return {
        id: `behaviour_${this.#added}`,
        name: behaviour.name ?? defaultName(behaviour),
        behaviour,
        matched: 0,
        remaining: remainingOf(behaviour),
      };
    });
    this.#active = [...added, ...this.#active];
    return added.map(copyOf);
  }

  /** Removes every behaviour; returns how many there were. */
  clear(): number {
    const count = this.#active.length;
    this.#active = [];
    return count;
  }

  list(): BehaviourState[] {
    return this.#active.map(copyOf);
  }

  /**
   * The behaviour that answers this request, after the pipeline has set its facts (tenant,
   * environment, accepted key). Every key behaviour it matches counts it, and changes its key once
   * its count is reached (the request itself was answered by the reference, as the key allowed).
   */
  take(facts: RequestFacts, method: string, url: string): TakenRequest | undefined {
    const path = pathOf(url);
    let counted: string | undefined;
    for (const state of this.#active) {
      if (state.remaining === 0 || !matches(state.behaviour, facts, method, path)) continue;
      state.matched += 1;
      if (state.remaining !== null) state.remaining -= 1;
      const { behaviour } = state;
      if (behaviour.kind === 'revoke-key' || behaviour.kind === 'rotate-key') {
        if (state.remaining === 0) {
          this.#changeKey(state, facts.tenant ?? '');
          counted ??= state.name;
        }
        continue;
      }
      return { name: state.name, action: actionOf(behaviour as AnsweringBehaviour) };
    }
    return counted === undefined ? undefined : { name: counted, action: undefined };
  }

  #changeKey(state: BehaviourState, tenant: string): void {
    const { keyId } = state.behaviour;
    if (keyId === undefined) return;
    if (state.behaviour.kind === 'revoke-key') {
      this.#data.keys.revoke(tenant, keyId);
      return;
    }
    const rotated = this.#data.keys.rotate(tenant, keyId);
    if (typeof rotated === 'object') state.replacement = { id: rotated.key.id, secret: rotated.secret };
  }
}

function remainingOf(behaviour: Behaviour): number | null {
  if (behaviour.kind === 'revoke-key' || behaviour.kind === 'rotate-key') return behaviour.after;
  return behaviour.times ?? null;
}

function copyOf(state: BehaviourState): BehaviourState {
  return { ...state, ...(state.replacement ? { replacement: { ...state.replacement } } : {}) };
}

function defaultName(behaviour: Behaviour): string {
  switch (behaviour.kind) {
    case 'error':
      return `error ${behaviour.status} ${behaviour.code}`;
    case 'delay':
      return `delay ${behaviour.delayMs} ms`;
    case 'revoke-key':
    case 'rotate-key':
      return `${behaviour.kind} ${behaviour.keyId} after ${behaviour.after}`;
    default:
      return behaviour.refused === true ? `${behaviour.kind} (refused)` : behaviour.kind;
  }
}

/** A behaviour that answers requests (a key behaviour only counts them). */
type AnsweringBehaviour = Exclude<Behaviour, { kind: 'revoke-key' | 'rotate-key' }>;

function actionOf(behaviour: AnsweringBehaviour): BehaviourAction {
  const delayMs = behaviour.delayMs ?? 0;
  switch (behaviour.kind) {
    case 'error':
      return { kind: 'answer', answer: errorAnswerOf(behaviour), delayMs };
    case 'delay':
      return { kind: 'answer', answer: undefined, delayMs };
    default:
      return { kind: 'cut', cut: behaviour.kind, refused: behaviour.refused === true, delayMs };
  }
}

/** The error body of spec §7, whatever the behaviour's code: the shape is never what a test varies. */
function errorAnswerOf(behaviour: Extract<Behaviour, { kind: 'error' }>): JsonAnswer {
  const headers: Record<string, string> = { ...behaviour.headers };
  if (behaviour.retryAfter !== undefined) headers['Retry-After'] = String(behaviour.retryAfter);
  return {
    status: behaviour.status,
    headers,
    body: { error: { code: behaviour.code, message: behaviour.message ?? defaultMessage(behaviour.status) } },
    errorCode: behaviour.code,
  };
}

function defaultMessage(status: number): string {
  if (status === 429) return 'Too many requests: wait as long as Retry-After says, then try again.';
  if (status === 503) return 'The service is unavailable: try again later.';
  return 'The request could not be answered.';
}

function matches(behaviour: Behaviour, facts: RequestFacts, method: string, path: string): boolean {
  return (
    (behaviour.tenant === undefined || behaviour.tenant === facts.tenant) &&
    (behaviour.environment === undefined || behaviour.environment === facts.environment) &&
    (behaviour.keyId === undefined || behaviour.keyId === facts.keyId) &&
    (behaviour.method === undefined || behaviour.method === method) &&
    (behaviour.path === undefined || behaviour.path === path)
  );
}
