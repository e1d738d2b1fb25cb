// The visitor's clock, ticking once a second: null until the page has hydrated, since the server's
// clock is not the visitor's and a cached page was rendered at another time.
import { useEffect, useState } from "react";

export function useNow(): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
