// The panel's addresses, in one place: the router, the pages' links and forms, and the API
// listener's Expect check (which must tell a panel POST apart) all read them here.

export const PATHS = {
  home: '/',
  signIn: '/sign-in',
  signOut: '/sign-out',
  settings: '/settings',
  api: '/settings/api',
  keys: '/settings/api/keys',
  css: '/assets/panel.css',
  js: '/assets/panel.js',
} as const;

export function keyActionPath(id: string, action: 'revoke' | 'rotate'): string {
  return `${PATHS.keys}/${encodeURIComponent(id)}/${action}`;
}
