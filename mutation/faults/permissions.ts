// Permissions (spec §5 Authentication versus authorization, §7): the faults that break these rules (see ../fault.ts).
import type { Permission } from '../../schemas/generated/fixtures.ts';
import { changingAnswers, CORRECT, type Fault } from '../fault.ts';

export const PERMISSIONS_FAULTS = {
  'permission-check-skipped': {
    description: 'A valid key is served whatever its permissions.',
    catches: ['PERM-INSUFFICIENT-REJECTED', 'PERM-INSUFFICIENT-403'],
    steps: () => ({ permits: () => true }),
  },
  'permission-denied-answered-401': {
    description: 'insufficient_permissions is answered 401 instead of 403.',
    catches: ['PERM-INSUFFICIENT-403'],
    steps: () => ({
      writeResponse: changingAnswers('insufficient_permissions', { status: 401 }),
    }),
  },
  'read-only-key-refused': {
    description: 'Reading needs the write permission as well: Read Only keys are refused.',
    catches: ['PERM-READ-ONLY-READS'],
    steps: () => ({
      permits: (key, permission) =>
        CORRECT.permits(key, permission) &&
        key.permissions.has(permission.replace(/:read$/, ':write') as Permission),
    }),
  },
} satisfies Record<string, Fault>;
