// The sale box: staff's words for the sale and a countdown to the real time it ends (decision 075).
// The page is cached for everyone, so the server writes the end as a date and the browser counts
// down once it has hydrated; at the end the box goes (and no cached copy outlives it).
import { Clock } from "~/components/icons";
import { LocalTime } from "~/components/local-time";
import { useNow } from "~/components/use-now";
import type { ProductSale } from "~/lib/reviews";

const pad = (n: number) => String(n).padStart(2, "0");

/** "2d 04:05:06", "04:05:06" or "5:06" left. */
function formatLeft(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (days > 0) return `${days}d ${pad(hours)}:${pad(minutes)}:${pad(seconds)}`;
  if (hours > 0) return `${hours}:${pad(minutes)}:${pad(seconds)}`;
  return `${minutes}:${pad(seconds)}`;
}

export function SaleCountdown({ sale }: { sale: ProductSale }) {
  const now = useNow();
  if (now !== null && now >= sale.endsAt) return null;
  return (
    <div className="rounded-xl border border-red-500/40 bg-red-500/10 p-4" data-testid="sale-box">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="text-lg font-black text-red-400">{sale.label}</p>
        <p className="flex items-center gap-1.5 text-sm font-semibold">
          <Clock className="size-4" aria-hidden /> Sale ends{" "}
          {now === null ? (
            <LocalTime ms={sale.endsAt} format="datetime" />
          ) : (
            <>
              in{" "}
              <span className="font-mono tabular-nums" role="timer" aria-live="off">
                {formatLeft(sale.endsAt - now)}
              </span>
            </>
          )}
        </p>
      </div>
    </div>
  );
}
