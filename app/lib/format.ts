// Date formats from the specification. Pages are rendered once for everyone and cached, so
// dates are shown in UTC: the server and every browser produce the same text.
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number) => String(n).padStart(2, "0");

/** "MMM dd, yyyy", e.g. "Nov 03, 2026". */
export function formatDate(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCDate())}, ${d.getUTCFullYear()}`;
}

/** "MMM dd, yyyy at HH:mm", e.g. "Nov 03, 2026 at 14:05". */
export function formatDateTime(ms: number): string {
  const d = new Date(ms);
  return `${formatDate(ms)} at ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

/** File sizes in MB with two decimals, as the downloads list shows them. */
export function formatFileSize(bytes: number | null | undefined): string {
  return typeof bytes === "number" ? `${(bytes / (1024 * 1024)).toFixed(2)} MB` : "Unknown size";
}

/** US dollars from integer cents, two decimals: "$1,234.50". */
export function formatUsd(cents: number): string {
  return `$${(cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}
