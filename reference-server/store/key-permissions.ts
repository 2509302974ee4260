// The permissions a key can hold, and what each access type grants: `full_access` every
// permission, `read_only` every `:read` one, `custom` exactly those listed.
import type { Permission } from '../../schemas/generated/fixtures.ts';
import type { Access } from '../../schemas/generated/api-key-management.ts';

export const ALL_PERMISSIONS: readonly Permission[] = [
  'customers:read',
  'customers:write',
  'invoices:read',
  'invoices:write',
];

export function permissionsOf(key: { access: Access; permissions?: readonly Permission[] }): Set<Permission> {
  switch (key.access) {
    case 'full_access':
      return new Set(ALL_PERMISSIONS);
    case 'read_only':
      return new Set(ALL_PERMISSIONS.filter((permission) => permission.endsWith(':read')));
    case 'custom':
      return new Set(key.permissions ?? []);
  }
}
