// Sold-code time filters: today from midnight, this week from Sunday, this month from the 1st,
// all in the admin's own time zone (offset in minutes as Date#getTimezoneOffset gives it).
export const PERIODS = { all: "All time", today: "Today", week: "This week", month: "This month" } as const;
export type Period = keyof typeof PERIODS;

export function isPeriod(value: unknown): value is Period {
  return typeof value === "string" && value in PERIODS;
}

export function periodStart(period: Period, now: number, tzOffsetMinutes = 0): number | undefined {
  if (period === "all") return undefined;
  const shift = tzOffsetMinutes * 60_000;
  // The wall-clock date in the admin's zone, read through UTC getters.
  const local = new Date(now - shift);
  const y = local.getUTCFullYear();
  const m = local.getUTCMonth();
  const d = local.getUTCDate();
  const midnight = (year: number, month: number, day: number) => Date.UTC(year, month, day) + shift;
  if (period === "today") return midnight(y, m, d);
  if (period === "week") return midnight(y, m, d - local.getUTCDay());
  return midnight(y, m, 1);
}
