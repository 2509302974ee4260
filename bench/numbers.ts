// Number helpers of the bench reports: medians and ranges of paired ratios, seconds, load averages.

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

export function seconds(millis: number): string {
  return (millis / 1000).toFixed(1);
}

export function load(value: number): string {
  return value.toFixed(2);
}
