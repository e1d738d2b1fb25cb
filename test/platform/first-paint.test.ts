// The first-paint pass over a rendered document (decision 130): read whole and shaped as text when
// the render is complete with its shell, shaped as it streams when a part is still waiting. Both
// must write the same document, wherever the renderer's chunks happen to be cut.
import { describe, expect, it } from "vitest";
import { forFirstPaint } from "~/http/first-paint.server";
import stylesheetUrl from "~/app.css?url";

// A document as React writes it before the pass: preload hints hoisted into the head, React
// Router's context script, module script and first data at the end of the body, a part written
// later. What visitors wrote is in the head (escaped by React) and after the module script (in
// React Router's data, escaped as JSON): neither may read as what the pass looks for.
const SHELL =
  '<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><title>Shop</title>' +
  '<meta name="description" content="Try rel=&quot;modulepreload&quot; and &lt;/head&gt; in a review"/>' +
  '<link rel="modulepreload" href="/assets/entry.client.js" nonce="N1"/><link rel="modulepreload" href="/assets/home.js" nonce="N1"/></head>' +
  "<body><p>The page</p>" +
  '<script nonce="N1">window.__reactRouterContext = {};</script>' +
  '<script nonce="N1" type="module" async="">import "/assets/entry.client.js";\nimport * as route0 from "/assets/home.js";</script>' +
  '<script nonce="N1">enqueue("[\\"Café — a review says rel=\\\\\\"modulepreload\\\\\\" type=\\\\\\"module\\\\\\" async=\\\\\\"\\\\\\" \\\\u003c/head>\\"]");</script>';
const LATER = '<div hidden id="S:0"><p>The plans, from 29 €</p></div><script nonce="N1">$RC("B:0","S:0")</script></body></html>';
const DOCUMENT = SHELL + LATER;

const encoder = new TextEncoder();

/** `text` as a stream of chunks cut at `cuts` (UTF-8 byte offsets), the last one when `last` settles. */
function streamOf(text: string, cuts: number[], last: Promise<void> = Promise.resolve()): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  const edges = [0, ...cuts, bytes.length];
  return new ReadableStream({
    async start(controller) {
      for (let i = 0; i + 1 < edges.length; i++) {
        if (i + 2 === edges.length) await last;
        controller.enqueue(bytes.slice(edges[i], edges[i + 1]));
      }
      controller.close();
    },
  });
}

const read = async (body: ReadableStream<Uint8Array> | Uint8Array) =>
  body instanceof Uint8Array ? new TextDecoder().decode(body) : new Response(body).text();
const page = { pathname: "/auth", nonce: "N1" };

describe("the first-paint pass", () => {
  it("shapes a complete render as text: the stylesheet first, the hints and the module script held, the loader after it", async () => {
    const shaped = await read(await forFirstPaint(streamOf(DOCUMENT, [40, 300]), Promise.resolve(), page));
    expect(
      shaped.startsWith(`<!DOCTYPE html><html lang="en"><head><link rel="stylesheet" href="${stylesheetUrl}"><meta charSet="utf-8"/>`),
    ).toBe(true);
    expect(shaped).not.toContain('rel="modulepreload"');
    expect([...shaped.matchAll(/<link rel="modulepreload-after-paint" href="([^"]+)"/g)].map((m) => m[1])).toEqual([
      "/assets/entry.client.js",
      "/assets/home.js",
    ]);
    expect(shaped).toMatch(
      /<script nonce="N1" type="text\/x-after-paint">import "\/assets\/entry\.client\.js";\nimport \* as route0 from "\/assets\/home\.js";<\/script><script nonce="N1">\(function/,
    );
    expect(shaped).not.toMatch(/<script[^>]*type="module"/);
    // What visitors wrote is left as it was, and the rest of the document follows whole.
    expect(shaped).toContain('<meta name="description" content="Try rel=&quot;modulepreload&quot; and &lt;/head&gt; in a review"/>');
    expect(shaped).toContain(SHELL.slice(SHELL.lastIndexOf("<script")));
    expect(shaped.endsWith(LATER)).toBe(true);
  });

  it("inlines the first screen's CSS on the pages it covers, with the whole stylesheet for readers without scripts", async () => {
    const shaped = await read(
      await forFirstPaint(streamOf(DOCUMENT, []), Promise.resolve(), { ...page, pathname: "/product/vertex-rust" }),
    );
    expect(shaped).toMatch(/^<!DOCTYPE html><html lang="en"><head><style>[^<]*\.text-accent/);
    expect(shaped).toContain(`<noscript><link rel="stylesheet" href="${stylesheetUrl}"></noscript></head>`);
  });

  it("streams a render that is still waiting, shaped exactly as a complete one, wherever the chunks are cut", async () => {
    const whole = await read(await forFirstPaint(streamOf(DOCUMENT, []), Promise.resolve(), page));
    const shellBytes = encoder.encode(SHELL).length;
    // Cut inside the head's end, inside the module script's type and again just before its last
    // character, inside a character of two bytes (and one of three) just after it, and where the
    // shell ends.
    const bytesTo = (text: string) => encoder.encode(DOCUMENT.slice(0, DOCUMENT.indexOf(text))).length;
    const cuts = [
      DOCUMENT.indexOf("</head>") + 3,
      DOCUMENT.indexOf('type="module"') + 7,
      DOCUMENT.indexOf('async=""') + 7,
      bytesTo("é") + 1,
      bytesTo("—") + 2,
      shellBytes,
    ];
    let release!: () => void;
    const waiting = new Promise<void>((resolve) => (release = resolve));
    const body = await forFirstPaint(streamOf(DOCUMENT, cuts, waiting), waiting, page);
    // Not waited for: the body streams, and its shaped first part arrives before the slow part exists.
    expect(body).toBeInstanceOf(ReadableStream);
    const reader = (body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = decoder.decode((await reader.read()).value);
    expect(first).toContain('type="text/x-after-paint"');
    expect(first).not.toContain("The plans");
    release();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value, { stream: true });
    expect(first + rest).toBe(whole);
  });

  it("links the whole stylesheet and leaves the scripts alone when a document has no module script", async () => {
    const page404 = '<!DOCTYPE html><html lang="en"><head><title>Down</title></head><body><p>Sorry</p></body></html>';
    // Even where the first screen's CSS would go: nothing would add the rest of the stylesheet.
    for (const [done, cuts] of [
      [Promise.resolve(), []],
      [new Promise<void>(() => {}), [20]],
    ] as const) {
      const shaped = await read(await forFirstPaint(streamOf(page404, [...cuts]), done, { ...page, pathname: "/" }));
      expect(shaped).toBe(
        `<!DOCTYPE html><html lang="en"><head><link rel="stylesheet" href="${stylesheetUrl}"><title>Down</title></head><body><p>Sorry</p></body></html>`,
      );
    }
  });
});
