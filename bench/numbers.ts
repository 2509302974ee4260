// Number helpers of the bench: percentiles of latencies, medians and ranges of paired ratios, and
// how seconds, milliseconds, MiB, load averages and whole counts are written.

export function range(values: readonly number[]): string {
  if (values.length === 0) return 'no rounds';
  return `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? 0;
  // An even count has two middle values: their mean, not the higher of them.
  return sorted.length % 2 === 0 ? ((sorted[middle - 1] ?? upper) + upper) / 2 : upper;
}

/** The value at `share` (0–1) of `sorted` (ascending), or 0 when there is none. */
export function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0;
}

export function seconds(millis: number): string {
  return (millis / 1000).toFixed(1);
}

export function load(value: number): string {
  return value.toFixed(2);
}

export function whole(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

export function ms(value: number): string {
  return value.toFixed(value < 10 ? 2 : 1);
}

export function mib(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
