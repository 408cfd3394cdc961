/*
 * Times for people, always with their unit. Simulated time is integer ns; the
 * page shows ms with µs precision for event times ("t=200.032 ms") and picks
 * the unit for durations ("850 ns", "31.513 µs", "3.000 ms", "1.250 s").
 */

/** An event time: "t=12.345 ms" (µs precision, so events 1 µs apart read differently). */
export function formatT(ns: number): string {
  return `t=${(ns / 1e6).toFixed(3)} ms`
}

/** A duration in the largest unit that keeps it >= 1: ns, µs, ms or s. */
export function formatDuration(ns: number): string {
  const abs = Math.abs(ns)
  if (abs < 1e3) return `${Math.round(ns)} ns`
  if (abs < 1e6) return `${(ns / 1e3).toFixed(3)} µs`
  if (abs < 1e9) return `${(ns / 1e6).toFixed(3)} ms`
  return `${(ns / 1e9).toFixed(3)} s`
}

/** A number of ns as ms with µs precision, without the unit (table cells under an "(ms)" header). */
export function msFromNs(ns: number): string {
  return (ns / 1e6).toFixed(3)
}
