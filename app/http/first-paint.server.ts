// Shapes every HTML document so that it paints from its own bytes, before any script:
//   - The whole stylesheet goes into the head. No request for a stylesheet stands between the
//     cached document and the first paint. Tailwind keeps only the classes in use (about 9 KB
//     compressed), so all of it is "critical" and client-side navigations need nothing more.
//   - Hydration waits for the page to have loaded and painted. React Router's module script (which
//     imports the framework, the entry and the route modules) and its modulepreload hints are held
//     inert, and a small loader starts them once the window has loaded and the first contentful
//     paint has been reported. The server-rendered page is all there meanwhile, and its
//     links work as plain links.
// Outside the development server only (decision 024, 025); the pass runs before the page cache
// stores the document.
import css from "~/app.css?inline";
import { STYLESHEET_INLINED } from "~/lib/stylesheet";

const styleElement = `<style>${css}</style>`;

/** The type that keeps React Router's module script from running until the loader starts it. */
const HELD_TYPE = "text/x-after-paint";
/** The rel that keeps its modulepreload hints from fetching until then (browsers ignore it). */
const HELD_REL = "modulepreload-after-paint";

/**
 * Runs in the browser, as the document's inline script right after the held one: starts the held
 * module script, and the preload hints that fetch all of its imports at once, once the window has
 * loaded and the first contentful paint has been reported, then one frame later. Where the browser reports no paints, or none within a second of the load (a
 * page opened in a background tab paints only when shown), it starts anyway. The held element is
 * replaced by a copy because a script element runs at most once; the copy keeps the nonce (CSP).
 */
function startAfterFirstPaint(heldType: string, heldRel: string) {
  const held = document.querySelector<HTMLScriptElement>(`script[type="${heldType}"]`);
  if (!held) return;
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    requestAnimationFrame(() =>
      setTimeout(() => {
        for (const hint of document.querySelectorAll<HTMLLinkElement>(`link[rel="${heldRel}"]`)) {
          const preload = document.createElement("link");
          preload.rel = "modulepreload";
          preload.href = hint.href;
          hint.replaceWith(preload);
        }
        const script = document.createElement("script");
        script.type = "module";
        script.nonce = held.nonce;
        script.textContent = held.textContent;
        held.replaceWith(script);
      }),
    );
  };
  let painted = !PerformanceObserver.supportedEntryTypes?.includes("paint");
  let loaded = document.readyState === "complete";
  if (!painted) {
    new PerformanceObserver((entries, observer) => {
      if (!entries.getEntriesByName("first-contentful-paint").length) return;
      observer.disconnect();
      painted = true;
      if (loaded) start();
    }).observe({ type: "paint", buffered: true });
  }
  const onLoad = () => {
    loaded = true;
    if (painted) start();
    else setTimeout(start, 1000);
  };
  if (loaded) onLoad();
  else addEventListener("load", onLoad, { once: true });
}

const loader = `(${startAfterFirstPaint.toString()})(${JSON.stringify(HELD_TYPE)}, ${JSON.stringify(HELD_REL)})`;

export function forFirstPaint(response: Response): Response {
  if (!STYLESHEET_INLINED || !response.headers.get("Content-Type")?.startsWith("text/html")) return response;
  return new HTMLRewriter()
    .on("head", {
      element(head) {
        head.prepend(styleElement, { html: true });
      },
    })
    .on('link[rel="modulepreload"]', {
      element(link) {
        link.setAttribute("rel", HELD_REL);
      },
    })
    .on('script[type="module"]', {
      element(script) {
        const nonce = script.getAttribute("nonce");
        script.setAttribute("type", HELD_TYPE);
        script.removeAttribute("async");
        script.after(`<script${nonce ? ` nonce="${nonce}"` : ""}>${loader}</script>`, { html: true });
      },
    })
    .transform(response);
}
