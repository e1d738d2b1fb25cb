// Shapes every HTML document so that it paints from its own bytes, before any script:
//   - The pages a first visit usually opens (home, products, a product) carry only their first
//     screen's CSS in the head (first-screen.css, about two thirds of the whole) and load the whole
//     stylesheet, a hashed file the browser caches, after the first paint. Every other page links
//     the whole stylesheet in the head: reached from those, its visitor has it cached already.
//   - Hydration waits for the page to have loaded and painted. React Router's module script (which
//     imports the framework, the entry and the route modules) and its modulepreload hints are held
//     inert, and a small loader starts them once the window has loaded and the first contentful
//     paint has been reported. The server-rendered page is all there meanwhile, and its
//     links work as plain links.
// Outside the development server only (decisions 025, 106); the pass runs before the page cache
// stores the document.
import stylesheetUrl from "~/app.css?url";
import firstScreenCss from "~/first-screen.css?inline";
import { DOCUMENTS_SHAPED } from "~/lib/stylesheet";

const firstScreenStyle = `<style>${firstScreenCss}</style>`;
/** Outside React: client-side navigations keep it whichever page the visit began on. */
const stylesheetLink = `<link rel="stylesheet" href="${stylesheetUrl}">`;

/** The pages whose first screen first-screen.css styles (its @source lines name what they draw). */
const FIRST_SCREEN_PAGES = /^\/(products|product\/[^/]+)?$/;

/** The type that keeps React Router's module script from running until the loader starts it. */
const HELD_TYPE = "text/x-after-paint";
/** The rel that keeps its modulepreload hints from fetching until then (browsers ignore it). */
const HELD_REL = "modulepreload-after-paint";

/**
 * Runs in the browser, as the document's inline script right after the held one: once the window
 * has loaded and the first contentful paint has been reported, then one frame later, adds the whole
 * stylesheet (unless the head links it already) and starts the held module script, and the preload
 * hints that fetch all of its imports at once. Where the browser reports no paints, or none within a
 * second of the load (a page opened in a background tab paints only when shown), it starts anyway.
 * The held element is replaced by a copy because a script element runs at most once; the copy keeps
 * the nonce (CSP). The stylesheet comes first so that hydrated pages a visitor navigates to are
 * styled whatever they draw.
 */
function startAfterFirstPaint(heldType: string, heldRel: string, stylesheet: string) {
  const held = document.querySelector<HTMLScriptElement>(`script[type="${heldType}"]`);
  if (!held) return;
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    requestAnimationFrame(() =>
      setTimeout(() => {
        if (!document.querySelector(`link[rel="stylesheet"][href="${stylesheet}"]`)) {
          const link = document.createElement("link");
          link.rel = "stylesheet";
          link.href = stylesheet;
          document.head.appendChild(link);
        }
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

const loader = `(${startAfterFirstPaint.toString()})(${[HELD_TYPE, HELD_REL, stylesheetUrl].map((arg) => JSON.stringify(arg)).join(", ")})`;

export function forFirstPaint(response: Response, pathname: string): Response {
  if (!DOCUMENTS_SHAPED || !response.headers.get("Content-Type")?.startsWith("text/html")) return response;
  const wholeStylesheet = !FIRST_SCREEN_PAGES.test(pathname);
  return new HTMLRewriter()
    .on("head", {
      element(head) {
        if (wholeStylesheet) {
          head.prepend(stylesheetLink, { html: true });
          return;
        }
        head.prepend(firstScreenStyle, { html: true });
        // Without scripts the loader never adds it; the first screen's CSS alone is not the page.
        head.append(`<noscript>${stylesheetLink}</noscript>`, { html: true });
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
