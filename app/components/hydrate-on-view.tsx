// Sections under the first screen whose code the browser fetches when they come near the viewport
// (decision 114). The server renders them as any other part of the page, so their content is in the
// document, readable without JavaScript and laid out from the first paint; the browser keeps that
// markup as it is (React leaves a server-rendered Suspense boundary alone until its code is there)
// and hydrates it once the section is about to be seen. A section the browser draws itself (after a
// client-side navigation) fetches its code at once.
//
// React drops a waiting section's markup and draws it afresh if the section is updated before its
// code arrives, so a section must not change with the page's state: it is memoised on its props,
// and is placed outside providers whose values change after the page loads. Should React drop it
// all the same (a change of the router's state reaches every boundary still waiting), the section
// fetches its code at once and is drawn again.
import { type ComponentType, memo, Suspense, useEffect, useRef } from "react";
import { useNavigate } from "react-router";
import { fetchedOnce, lazyComponent } from "./lazy";

/** How far outside the viewport a section starts loading, so it is live by the time it shows. */
const AHEAD = "300px 0px";

/** `load`'s component, its code fetched by the browser when it nears the viewport. */
export function hydratedOnView<P extends object>(load: () => Promise<ComponentType<P>>) {
  return import.meta.env.SSR ? renderedOnServer(load) : hydratedInBrowser(load);
}

/**
 * On the server the section's module is loaded once per isolate, when the page's module is, and
 * drawn in the same place the browser will look for it. The Suspense boundary is the one the
 * browser's copy keeps dehydrated.
 */
function renderedOnServer<P extends object>(load: () => Promise<ComponentType<P>>) {
  const section = fetchedOnce(load);
  void section.preload();
  function Section(props: P) {
    const Component = section.useLoaded();
    return <Component {...props} />;
  }
  return function OnServer(props: P) {
    return (
      <div>
        <Suspense fallback={null}>
          <Section {...props} />
        </Suspense>
      </div>
    );
  };
}

function hydratedInBrowser<P extends object>(load: () => Promise<ComponentType<P>>) {
  let start = () => {};
  const near = new Promise<void>((resolve) => (start = resolve));
  let arrived = false;
  const Section = lazyComponent(() =>
    near.then(load).then((component) => {
      arrived = true;
      return component;
    }),
  );
  // Drawn only when the section is not (or no longer) the server's markup: React dropped it for an
  // update that came first (a router state change can), or the browser draws the page itself.
  function Fetching() {
    useEffect(() => start(), []);
    return null;
  }
  return memo(function OnView(props: P) {
    const ref = useRef<HTMLDivElement>(null);
    useEffect(() => {
      const element = ref.current;
      // Nothing from the server to keep (a client-side navigation), or no way to tell: load it now.
      if (!element?.hasChildNodes() || typeof IntersectionObserver === "undefined") return start();
      const observer = new IntersectionObserver(
        (entries) => {
          if (!entries.some((entry) => entry.isIntersecting)) return;
          observer.disconnect();
          start();
        },
        { rootMargin: AHEAD },
      );
      observer.observe(element);
      return () => observer.disconnect();
    }, []);
    // React holds back a click inside markup it has not hydrated yet, and the browser would load a
    // link's page afresh: until the section's code has arrived, a link in it is followed here, in
    // place, as it will be once hydrated. Listening on the window's capture phase comes before React's.
    const navigate = useNavigate();
    useEffect(() => {
      const follow = (event: MouseEvent) => {
        if (arrived || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
          return;
        const link = event.target instanceof Element ? event.target.closest("a[href]") : null;
        if (!(link instanceof HTMLAnchorElement) || !ref.current?.contains(link) || link.target || link.hasAttribute("download")) return;
        if (link.origin !== window.location.origin) return;
        event.preventDefault();
        start();
        void navigate(link.pathname + link.search + link.hash);
      };
      window.addEventListener("click", follow, true);
      return () => window.removeEventListener("click", follow, true);
    }, [navigate]);
    return (
      <div ref={ref}>
        <Suspense fallback={<Fetching />}>
          <Section {...props} />
        </Suspense>
      </div>
    );
  });
}
