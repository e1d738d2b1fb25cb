// The shop's date formats ("MMM dd, yyyy", "… at HH:mm"). Pages are rendered once for everyone and
// cached, so the server writes dates in UTC; the browser switches them to the visitor's zone after
// hydration (components/local-time.tsx).
import { DAY_MS, HOUR_MS } from "./time";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

/** Which clock a date is read on: UTC (the same everywhere) or the visitor's own zone. */
export type TimeZone = "utc" | "local";

function fields(ms: number, zone: TimeZone) {
  const d = new Date(ms);
  return zone === "utc"
    ? { year: d.getUTCFullYear(), month: d.getUTCMonth(), day: d.getUTCDate(), hours: d.getUTCHours(), minutes: d.getUTCMinutes() }
    : { year: d.getFullYear(), month: d.getMonth(), day: d.getDate(), hours: d.getHours(), minutes: d.getMinutes() };
}

/** "MMM dd, yyyy", e.g. "Nov 03, 2026". */
export function formatDate(ms: number, zone: TimeZone = "utc"): string {
  const { year, month, day } = fields(ms, zone);
  return `${MONTHS[month]} ${pad(day)}, ${year}`;
}

/** "HH:mm", e.g. "14:05". */
export function formatTime(ms: number, zone: TimeZone = "utc"): string {
  const { hours, minutes } = fields(ms, zone);
  return `${pad(hours)}:${pad(minutes)}`;
}

/** "MMM dd, yyyy at HH:mm", e.g. "Nov 03, 2026 at 14:05". */
export function formatDateTime(ms: number, zone: TimeZone = "utc"): string {
  return `${formatDate(ms, zone)} at ${formatTime(ms, zone)}`;
}

/** A stretch of time in whole days (or hours under a day): "3 days", "1 day", "5 hours". */
export function formatDuration(ms: number): string {
  if (ms >= DAY_MS) {
    const days = Math.round(ms / DAY_MS);
    return counted(days, "day");
  }
  const hours = Math.max(1, Math.round(ms / HOUR_MS));
  return counted(hours, "hour");
}

/** File sizes in MB with two decimals, as the downloads list shows them. */
export function formatFileSize(bytes: number | null | undefined): string {
  return typeof bytes === "number" ? `${(bytes / (1024 * 1024)).toFixed(2)} MB` : "Unknown size";
}

// Numbers are grouped by plain string work rather than `toLocaleString` or `Intl`: the browser's
// first call into its locale data (ICU) blocks the main thread for tens of milliseconds, which a
// phone pays on every page that formats a number while it loads (decision 041).

/** A whole number with thousands separators: 100000 → "100,000". */
export function formatCount(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+$)/g, ",");
}

/** Integer cents as an amount with two decimals and thousands separators: -123450 → "-1,234.50". */
function formatCentsAmount(cents: number): string {
  const abs = Math.round(Math.abs(cents));
  return `${cents < 0 && abs > 0 ? "-" : ""}${formatCount(Math.floor(abs / 100))}.${pad(abs % 100)}`;
}

/** US dollars from integer cents, two decimals: "$1,234.50". */
export function formatUsd(cents: number): string {
  return `$${formatCentsAmount(cents)}`;
}

/** Integer cents in any currency: "$1,234.50" in US dollars, else "EUR 1,234.50". */
export function formatCents(cents: number, currency: string): string {
  return currency === "USD" ? formatUsd(cents) : `${currency} ${formatCentsAmount(cents)}`;
}

/** The word for a count: `one` for exactly one, else `many`. */
export const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/** A count and its word: "1 day", "3 days" (`many` when adding an "s" is not the plural). */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${plural(n, one, many)}`;
