// The intro animation, once per browser session. It is in the server HTML and runs on CSS alone
// (phases at 100 ms, 1 s, 2 s; gone at 3 s), so it never waits for scripts; an inline script in
// the document head hides it at once when this session has already seen it. The page asks
// useIntroOver whether to show it, and holds back what would play unseen behind it.
import { useEffect, useState } from "react";
import { BRAND, TAGLINE } from "~/lib/brand";
import { INTRO_FLAG, INTRO_MS } from "~/lib/intro";

/** False while the intro plays (on the server too, where it is part of the HTML); true once over. */
export function useIntroOver(): boolean {
  const [over, setOver] = useState(false);
  useEffect(() => {
    if (document.documentElement.dataset.introSeen !== undefined) {
      setOver(true);
      return;
    }
    const timer = setTimeout(() => {
      try {
        sessionStorage.setItem(INTRO_FLAG, "true");
      } catch {
        // Private mode without storage: the intro simply shows again next time.
      }
      setOver(true);
    }, INTRO_MS);
    return () => clearTimeout(timer);
  }, []);
  return over;
}

export function IntroSplash() {
  return (
    <div
      aria-hidden
      className="intro-splash fixed inset-0 z-[150] flex flex-col items-center justify-center bg-surface bg-[radial-gradient(ellipse_at_top,rgba(249,115,22,0.25),transparent_60%)]"
    >
      <p className="intro-logo text-5xl font-black tracking-tight text-white sm:text-7xl">
        {BRAND.toUpperCase()}
        <span className="text-accent">.</span>
      </p>
      <p className="intro-tagline mt-4 px-6 text-center text-sm tracking-[0.3em] text-muted uppercase">{TAGLINE}</p>
      <div className="intro-bar mt-8 h-1 w-48 overflow-hidden rounded bg-line">
        <div className="h-full bg-accent" />
      </div>
    </div>
  );
}
