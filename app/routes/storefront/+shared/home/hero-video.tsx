// The hero's background: a still poster first (the page's largest paint, drawn by the stylesheet
// that travels inside the document: see .hero-poster in app.css), then the
// looping, muted video embedded from YouTube. The player is added only once the hero can be seen
// (the intro splash is over), the page has loaded and the browser is idle, so it never competes
// with the first paint or hydration, nor plays unseen behind the intro; and it stays invisible
// until the player itself reports that it is playing: when the video is blocked, offline or slow
// the poster simply stays. Visitors who prefer reduced motion or save data keep the poster.
import { useEffect, useRef, useState } from "react";

const PLAYER_ORIGIN = "https://www.youtube-nocookie.com";
// The embedded player's state code for "playing" in its postMessage protocol.
const PLAYING = 1;

/** True when a message from the embedded player says the video is playing. */
function reportsPlaying(data: unknown): boolean {
  if (typeof data !== "string") return false;
  try {
    const message = JSON.parse(data) as { event?: string; info?: unknown };
    if (message.event === "onStateChange") return message.info === PLAYING;
    if (message.event === "infoDelivery" && typeof message.info === "object" && message.info !== null) {
      return (message.info as { playerState?: unknown }).playerState === PLAYING;
    }
  } catch {
    // Not the player's JSON: ignore.
  }
  return false;
}

function useIdleStart(enabled: boolean): boolean {
  const [start, setStart] = useState(false);
  useEffect(() => {
    if (!enabled) return;
    const saveData = (navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData;
    if (saveData || window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
    let idle = 0;
    const begin = () => {
      idle = window.requestIdleCallback
        ? window.requestIdleCallback(() => setStart(true), { timeout: 4000 })
        : window.setTimeout(() => setStart(true), 1500);
    };
    if (document.readyState === "complete") begin();
    else window.addEventListener("load", begin, { once: true });
    return () => {
      window.removeEventListener("load", begin);
      if (window.cancelIdleCallback) window.cancelIdleCallback(idle);
      else window.clearTimeout(idle);
    };
  }, [enabled]);
  return start;
}

export function HeroBackground({ videoId, heroVisible }: { videoId: string; heroVisible: boolean }) {
  const start = useIdleStart(heroVisible) && /^[\w-]{11}$/.test(videoId);
  const [playing, setPlaying] = useState(false);
  const frame = useRef<HTMLIFrameElement>(null);

  useEffect(() => {
    if (!start) return;
    const onMessage = (event: MessageEvent) => {
      if (event.origin === PLAYER_ORIGIN && event.source === frame.current?.contentWindow && reportsPlaying(event.data)) setPlaying(true);
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [start]);

  // The player posts its state only to a page that said it is listening.
  const listen = () =>
    frame.current?.contentWindow?.postMessage(JSON.stringify({ event: "listening", id: "hero", channel: "widget" }), PLAYER_ORIGIN);

  return (
    <>
      <div data-testid="hero-poster" className="hero-poster absolute inset-0 opacity-60" />
      {start ? (
        <iframe
          ref={frame}
          src={`${PLAYER_ORIGIN}/embed/${videoId}?autoplay=1&mute=1&loop=1&playlist=${videoId}&controls=0&playsinline=1&rel=0&disablekb=1&enablejsapi=1`}
          title="Background video"
          aria-hidden
          tabIndex={-1}
          allow="autoplay; encrypted-media"
          onLoad={listen}
          data-playing={playing}
          className={`pointer-events-none absolute top-1/2 left-1/2 h-[56.25vw] min-h-full w-[177.78vh] min-w-full -translate-x-1/2 -translate-y-1/2 transition-opacity duration-1000 ${
            playing ? "opacity-30" : "opacity-0"
          }`}
        />
      ) : null}
    </>
  );
}
