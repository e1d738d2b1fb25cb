// Dates in the visitor's own time zone without making pages differ per visitor: the server (whose
// HTML may be cached and shared) and the browser's first render both write UTC, marked as such;
// once the page has hydrated the browser rewrites the date in its own zone.
import { useSyncExternalStore } from "react";
import { formatDate, formatDateTime, formatTime } from "~/lib/format";

const noSubscription = () => () => {};

/** False on the server and while hydrating, true afterwards (and on client-side renders). */
function useHydrated(): boolean {
  return useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
}

const FORMATS = { date: formatDate, datetime: formatDateTime, time: formatTime };

/** A point in time (epoch ms) as "MMM dd, yyyy" (`date`), "MMM dd, yyyy at HH:mm" (`datetime`) or "HH:mm" (`time`). */
export function LocalTime({ ms, format = "date", className }: { ms: number; format?: keyof typeof FORMATS; className?: string }) {
  const local = useHydrated();
  const write = FORMATS[format];
  const stamp = `${formatDateTime(ms)} UTC`;
  // A bare day needs no zone to read well; a time of day does, until it is the visitor's own. A
  // list's dates are written once each: the title's stamp is a date and time's text in UTC.
  const utc = () => (format === "datetime" ? stamp : format === "date" ? write(ms, "utc") : `${write(ms, "utc")} UTC`);
  return (
    <time dateTime={new Date(ms).toISOString()} title={stamp} className={className}>
      {local ? write(ms, "local") : utc()}
    </time>
  );
}
