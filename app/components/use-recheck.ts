// Something a person waits for happens a moment later on the server (a key handed out by the
// job queue, a payment showing up on chain): while `waiting`, the page's data is loaded
// again every `everyMs` (1.5 s), at most `times` (20) times.
import { useEffect } from "react";
import { useRevalidator } from "react-router";

export function useRecheckWhile(waiting: boolean, { everyMs = 1500, times = 20 } = {}) {
  const { revalidate } = useRevalidator();
  useEffect(() => {
    if (!waiting) return;
    let left = times;
    const timer = setInterval(() => {
      if (--left <= 0) clearInterval(timer);
      void revalidate();
    }, everyMs);
    return () => clearInterval(timer);
  }, [waiting, revalidate, everyMs, times]);
}
