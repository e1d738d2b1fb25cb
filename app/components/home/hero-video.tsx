// The hero's looping, muted background video, embedded from YouTube. It is added only after the
// page has loaded and the browser is idle, so it never competes with the first paint; visitors
// who prefer reduced motion or save data keep the still background.
import { useEffect, useState } from "react";

export function HeroVideo({ videoId }: { videoId: string }) {
  const [show, setShow] = useState(false);
  useEffect(() => {
    const saveData = (navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData;
    if (saveData || window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    let idle = 0;
    const start = () => {
      idle = window.requestIdleCallback ? window.requestIdleCallback(() => setShow(true), { timeout: 4000 }) : window.setTimeout(() => setShow(true), 1500);
    };
    if (document.readyState === "complete") start();
    else window.addEventListener("load", start, { once: true });
    return () => {
      window.removeEventListener("load", start);
      if (window.cancelIdleCallback) window.cancelIdleCallback(idle);
      else window.clearTimeout(idle);
    };
  }, []);
  if (!show || !/^[\w-]{11}$/.test(videoId)) return null;
  const src = `https://www.youtube-nocookie.com/embed/${videoId}?autoplay=1&mute=1&loop=1&playlist=${videoId}&controls=0&playsinline=1&rel=0&disablekb=1`;
  return (
    <iframe
      src={src}
      title="Background video"
      aria-hidden
      tabIndex={-1}
      loading="lazy"
      allow="autoplay; encrypted-media"
      className="pointer-events-none absolute top-1/2 left-1/2 h-[56.25vw] min-h-full w-[177.78vh] min-w-full -translate-x-1/2 -translate-y-1/2 opacity-30"
    />
  );
}
