// What every panel route works with: the panel's shared state (`PanelContext`), one request to a
// panel host with who made it (`Visit`), and the page frame drawn from it.
import type { IncomingMessage } from 'node:http';
import type { Journal } from '../journal/journal.ts';
import type { PanelHost } from '../http/hosts.ts';
import type { TenantAccount, TenantData } from '../store/tenant-data.ts';
import type { PageFrame } from './page-layout.ts';
import type { Session, SessionStore } from './sessions.ts';
import type { SignInThrottle } from './sign-in-throttle.ts';
import type { SignInTokens } from './sign-in-token.ts';
import { keysPageAccess, type PanelUser, type UserDirectory } from './users.ts';

export interface PanelContext {
  domain: string;
  data: TenantData;
  users: UserDirectory;
  sessions: SessionStore;
  /** The client journal, which knows the keys sent over plain HTTP (shown as exposed). */
  journal?: Journal | undefined;
  signInTokens: SignInTokens;
  throttle: SignInThrottle;
}

/** One request to a panel host. */
export interface Visit {
  req: IncomingMessage;
  host: PanelHost;
  account: TenantAccount;
  session: Session | undefined;
  user: PanelUser | undefined;
  context: PanelContext;
}

export type SignedInVisit = Visit & { user: PanelUser; session: Session };

export function frameOf(visit: Visit): PageFrame {
  return {
    account: visit.account,
    environment: visit.host.environment,
    user: visit.user,
    csrfToken: visit.session?.csrfToken ?? '',
    showKeys: visit.user !== undefined && keysPageAccess(visit.account, visit.user) === 'allowed',
  };
}
