// Loads the data set the server serves (fixtures/*.json), validates it against
// schemas/fixtures.schema.json and the rules a schema cannot say, and names the file and the
// JSON path of anything wrong.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Fixtures } from '../../schemas/generated/fixtures.ts';
import { describeSchemaErrors } from '../../schemas/schema-errors.ts';
import { validateFixtures } from '../../schemas/start-up-validators.ts';
import { KEY_PREFIX_BY_ENVIRONMENT } from './key-format.ts';
import { PACKAGE_ROOT } from '../../kit/package-root.ts';

export const DEFAULT_FIXTURES_FILE = resolve(PACKAGE_ROOT, 'fixtures', 'reference.json');

export class FixturesError extends Error {
  constructor(file: string, problems: string[]) {
    super(
      `Invalid fixtures file ${file}:\n  ${problems.join('\n  ')}\nFix the file or pass another with --fixtures.`,
    );
    this.name = 'FixturesError';
  }
}

export function loadFixtures(file: string): Fixtures {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new FixturesError(file, [
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    ]);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new FixturesError(file, [`is not valid JSON: ${(error as Error).message}`]);
  }
  if (!validateFixtures(data)) throw new FixturesError(file, describeSchemaErrors(validateFixtures.errors));
  const problems = crossFieldProblems(data);
  if (problems.length > 0) throw new FixturesError(file, problems);
  return data;
}

/** Rules across fields: unique ids and secrets, and a key prefix that matches its environment. */
function crossFieldProblems(fixtures: Fixtures): string[] {
  const problems: string[] = [];
  const firstSeen = new Map<string, string>();
  const unique = (kind: string, value: string, path: string): void => {
    const earlier = firstSeen.get(`${kind}\0${value}`);
    if (earlier) problems.push(`${path}: duplicate ${kind}, already used at ${earlier}`);
    else firstSeen.set(`${kind}\0${value}`, path);
  };
  fixtures.tenants.forEach((tenant, t) => {
    unique('tenant id', tenant.id, `$.tenants[${t}].id`);
    tenant.keys.forEach((key, k) => {
      const path = `$.tenants[${t}].keys[${k}]`;
      unique('key id', key.id, `${path}.id`);
      unique('key secret', key.secret, `${path}.secret`);
      const prefix = KEY_PREFIX_BY_ENVIRONMENT[key.environment];
      if (!key.secret.startsWith(prefix)) {
        problems.push(`${path}.secret: a ${key.environment} key must start with "${prefix}"`);
      }
    });
    for (const environment of ['production', 'sandbox'] as const) {
      tenant.customers[environment].forEach((customer, c) => {
        unique('customer id', customer.id, `$.tenants[${t}].customers.${environment}[${c}].id`);
      });
    }
  });
  return problems;
}
