// Bench settings read from the environment (BENCH_SECONDS, BENCH_ROUNDS).

/** The positive number in environment variable `name`, or undefined when it is unset or empty. */
export function positiveNumber(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got ${JSON.stringify(text)}.`);
  return value;
}

/** How many runs (or pairs) environment variable `name` asks for: a whole number from 1 to `most`. */
export function runsWanted(name: string, fallback: number, most: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const runs = Number(text);
  if (!Number.isInteger(runs) || runs < 1 || runs > most)
    throw new Error(`${name} must be a whole number from 1 to ${most}, not "${text}".`);
  return runs;
}
