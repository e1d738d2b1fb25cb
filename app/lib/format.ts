// Date formats from the specification. Pages are rendered once for everyone and cached, so the
// server writes dates in UTC; the browser switches them to the visitor's zone after hydration
// (components/local-time.tsx).
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

/** File sizes in MB with two decimals, as the downloads list shows them. */
export function formatFileSize(bytes: number | null | undefined): string {
  return typeof bytes === "number" ? `${(bytes / (1024 * 1024)).toFixed(2)} MB` : "Unknown size";
}

/** US dollars from integer cents, two decimals: "$1,234.50". */
export function formatUsd(cents: number): string {
  return `$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
