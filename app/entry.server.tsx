// Renders documents, shaped for the first paint: whole when the render is complete with its shell,
// as a stream when a part waits on something slow. The CSP nonce the Worker chose for this
// response goes onto every script React Router writes.
import { isbot } from "isbot";
import { renderToReadableStream } from "react-dom/server";
import { type EntryContext, type RouterContextProvider, ServerRouter } from "react-router";
import { app } from "~/http/context.server";
import { forFirstPaint } from "~/http/first-paint.server";

export const streamTimeout = 5_000;

export default async function handleRequest(
  request: Request,
  status: number,
  headers: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === "HEAD") return new Response(null, { status, headers });
  const { nonce } = app(loadContext);
  // Bots and prerendering get everything at once, and the final status.
  const userAgent = request.headers.get("User-Agent");
  const whole = (userAgent && isbot(userAgent)) || routerContext.isSpaMode;
  let shellRendered = false;
  const body = await renderToReadableStream(<ServerRouter context={routerContext} url={request.url} nonce={nonce} />, {
    nonce,
    // A boundary whose content is ready when its part of the document is written stays where it
    // stands, however much came before it, instead of going into a hidden element that a script
    // moves later: the sections hydrated on view (decision 114) keep their place and markup, and
    // a reader without JavaScript sees them.
    progressiveChunkSize: Number.POSITIVE_INFINITY,
    signal: AbortSignal.timeout(streamTimeout + 1000),
    onError(error: unknown) {
      // Otherwise the shell's status stands: an error in a part written later is the browser's to show.
      if (!shellRendered || whole) status = 500;
      if (shellRendered) console.error(error);
    },
  });
  shellRendered = true;
  if (whole) await body.allReady;
  headers.set("Content-Type", "text/html; charset=utf-8");
  const document = await forFirstPaint(body, body.allReady, { pathname: new URL(request.url).pathname, nonce });
  return new Response(document, { headers, status });
}
