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
// Outside the development server only (decisions 025, 106). The document's renderer
// (entry.server.tsx) runs the pass, as text on a complete render (decision 130), before the page
// cache stores the document.
import stylesheetUrl from "~/app.css?url";
import firstScreenCss from "~/first-screen.css?inline";
import { settledWithin } from "~/lib/settled-within";
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

// What React writes for React Router's module script and its preload hints. React escapes quotes in
// text and in attribute values, so nothing a page shows can read as either.
const MODULE_SCRIPT_TYPE = ' type="module" async=""';
const MODULE_PRELOAD_REL = 'rel="modulepreload"';
const HEAD_START = /<head\b[^>]*>/;
const HEAD_END = "</head>";
const SCRIPT_END = "</script>";

/** Where React Router's module script begins in `html`: the last of the page's scripts but the data's. */
const moduleScriptIn = (html: string) => html.lastIndexOf(MODULE_SCRIPT_TYPE);

/** Whether `html`, its module script beginning at `script`, holds all that the shaping changes: the whole head and that script. */
const shapeable = (html: string, script: number) => script >= 0 && html.includes(HEAD_END) && html.includes(SCRIPT_END, script);

/**
 * A document (or its first part, through React Router's module script) shaped for the first paint.
 * React hoists the preload hints into the head, so only the head is searched for them; the module
 * script is searched for from the end, where React Router writes it. Without that script nothing
 * would start the page's scripts or add the stylesheet after the paint: such a document only
 * links the whole stylesheet, and keeps its scripts as they are.
 */
function shaped(html: string, pathname: string, nonce: string): string {
  const start = HEAD_START.exec(html);
  const end = html.indexOf(HEAD_END);
  if (!start || end < 0) return html;
  const headFrom = start.index + start[0].length;
  const script = moduleScriptIn(html);
  const scriptEnd = script > end ? html.indexOf(SCRIPT_END, script) : -1;
  if (scriptEnd < 0) return `${html.slice(0, headFrom)}${stylesheetLink}${html.slice(headFrom)}`;
  const hinted = html.slice(headFrom, end).replaceAll(MODULE_PRELOAD_REL, `rel="${HELD_REL}"`);
  const head = FIRST_SCREEN_PAGES.test(pathname)
    ? // Without scripts the loader never adds it; the first screen's CSS alone is not the page.
      `${firstScreenStyle}${hinted}<noscript>${stylesheetLink}</noscript>`
    : `${stylesheetLink}${hinted}`;
  const after = scriptEnd + SCRIPT_END.length;
  return (
    `${html.slice(0, headFrom)}${head}${html.slice(end, script)} type="${HELD_TYPE}"${html.slice(script + MODULE_SCRIPT_TYPE.length, after)}` +
    `<script nonce="${nonce}">${loader}</script>${html.slice(after)}`
  );
}

/**
 * How many of the last bytes of UTF-8 text (`bytes`, its last three at most) begin a character that
 * the next chunk completes: the decoder keeps them back, and they must still be written.
 */
function cutCharacter(bytes: Uint8Array): number {
  for (let back = 1; back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back]!;
    // 10xxxxxx continues a character; anything else begins one, of 1 to 4 bytes.
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return back < length ? back : 0;
  }
  return 0;
}

const encoder = new TextEncoder();

/** `text`'s UTF-8 bytes, in a buffer of their own (which the Workers types do not say of `encode`). */
const utf8 = (text: string) => encoder.encode(text) as Uint8Array<ArrayBuffer>;

/** The body with its first part shaped as it passes, once that part holds all the shaping changes. */
function shapedAsItStreams(body: ReadableStream<Uint8Array>, shape: (html: string) => string): ReadableStream<Uint8Array> {
  const decoder = new TextDecoder();
  let first: string | null = "";
  // Where the module script begins in `first`, once it has come: each chunk's text is searched once.
  let script = -1;
  // The stream's last three bytes: a character cut between chunks begins within them.
  let last: Uint8Array = new Uint8Array(0);
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (first === null) return controller.enqueue(chunk);
        const searched = Math.max(0, first.length - MODULE_SCRIPT_TYPE.length + 1);
        first += decoder.decode(chunk, { stream: true });
        if (script < 0) script = first.indexOf(MODULE_SCRIPT_TYPE, searched);
        if (chunk.length >= 3) last = chunk.subarray(-3);
        else {
          const joined = new Uint8Array(last.length + chunk.length);
          joined.set(last);
          joined.set(chunk, last.length);
          last = joined.subarray(-3);
        }
        if (!shapeable(first, script)) return;
        controller.enqueue(utf8(shape(first)));
        const cut = cutCharacter(last);
        if (cut > 0) controller.enqueue(last.slice(-cut));
        first = null;
      },
      flush(controller) {
        if (first !== null) controller.enqueue(utf8(shape(first + decoder.decode())));
      },
    }),
  );
}

/**
 * A rendered document's body, shaped for the first paint. A render that is complete by the time
 * its shell is (every page whose loaders have their data) is read whole and shaped as text; one
 * still waiting on a slow part streams, its first part shaped as it passes. A stream that goes
 * through a transform costs about a millisecond of CPU more a page than one read whole (decision
 * 130). The whole text goes out as its UTF-8 bytes: a Response made from a string of a page's size
 * cost more CPU than encoding it here and handing over the bytes (decision 131). `allReady` is
 * React's promise that everything is written; `nonce` is the page's.
 */
export async function forFirstPaint(
  body: ReadableStream<Uint8Array>,
  allReady: Promise<void>,
  { pathname, nonce }: { pathname: string; nonce: string },
): Promise<ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer>> {
  if (!DOCUMENTS_SHAPED) return body;
  const shape = (html: string) => shaped(html, pathname, nonce);
  const complete = await settledWithin(
    allReady.then(
      () => true,
      () => false,
    ),
    0,
  );
  return complete ? utf8(shape(await new Response(body).text())) : shapedAsItStreams(body, shape);
}
