// Something a person waits for happens a moment later on the server (a key handed out by the
// fulfilment queue): while `waiting`, the page's data is loaded again every 1.5 s, for at most 30 s.
import { useEffect } from "react";
import { useRevalidator } from "react-router";

const RECHECK_MS = 1500;
const MAX_RECHECKS = 20;

export function useRecheckWhile(waiting: boolean) {
  const { revalidate } = useRevalidator();
  useEffect(() => {
    if (!waiting) return;
    let left = MAX_RECHECKS;
    const timer = setInterval(() => {
      if (--left <= 0) clearInterval(timer);
      void revalidate();
    }, RECHECK_MS);
    return () => clearInterval(timer);
  }, [waiting, revalidate]);
}
