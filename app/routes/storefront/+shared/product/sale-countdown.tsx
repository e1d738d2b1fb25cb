// The "20% OFF — sale ends soon" box: a countdown from 7:23 and a claimed-stock bar.
import { useEffect, useState } from "react";
import { Clock } from "~/components/icons";

const START_SECONDS = 7 * 60 + 23;
const STOCK = 30;

export function SaleCountdown() {
  const [left, setLeft] = useState(START_SECONDS);
  // Random per visit, so it is chosen in the browser (the page itself is cached for everyone).
  const [claimed, setClaimed] = useState<number | null>(null);
  useEffect(() => {
    setClaimed(8 + Math.floor(Math.random() * 20));
    const timer = setInterval(() => setLeft((s) => (s > 0 ? s - 1 : 0)), 1000);
    return () => clearInterval(timer);
  }, []);
  const minutes = Math.floor(left / 60);
  const seconds = String(left % 60).padStart(2, "0");
  return (
    <div className="rounded-xl border border-red-500/40 bg-red-500/10 p-4">
      <div className="flex items-center justify-between">
        <p className="text-lg font-black text-red-400">20% OFF</p>
        <p className="flex items-center gap-1.5 text-sm font-semibold">
          <Clock className="size-4" aria-hidden /> Sale ends soon:{" "}
          <span className="font-mono tabular-nums" role="timer" aria-live="off">
            {minutes}:{seconds}
          </span>
        </p>
      </div>
      <div className="mt-3 h-2 overflow-hidden rounded bg-black/30" aria-hidden>
        <div className="h-full bg-red-500 transition-[width]" style={{ width: `${((claimed ?? 0) / STOCK) * 100}%` }} />
      </div>
      <p className="mt-1 text-xs text-muted">
        <span className="inline-block w-[2ch] text-right tabular-nums">{claimed ?? ""}</span>/{STOCK} claimed at this price
      </p>
    </div>
  );
}
