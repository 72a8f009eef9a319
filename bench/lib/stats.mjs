// Summaries of repeated measurements: median with min and max.

/** @param {number[]} values */
export function summarize(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], runs: values };
}

/** Ratio of two medians, rounded to 3 decimals. */
export function ratio(value, baseline) {
  return Math.round((value / baseline) * 1000) / 1000;
}

/** Median of the ratios of paired measurements (run i of each), rounded to 3 decimals. */
export function pairedRatio(values, baselines) {
  return ratio(summarize(values.map((v, i) => v / baselines[i])).median, 1);
}
