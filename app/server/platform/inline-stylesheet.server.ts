// Writes the stylesheet into the head of every HTML document, before anything else in it. The
// page then paints from its own bytes: no request for a stylesheet stands between the cached
// document and the first paint. The whole stylesheet is small enough (Tailwind keeps only the
// classes in use; about 9 KB compressed) that it is all "critical": nothing is left to load later,
// and client-side navigations need nothing more.
import css from "~/app.css?inline";
import { STYLESHEET_INLINED } from "~/lib/stylesheet";

const styleElement = `<style>${css}</style>`;

export function withInlineStylesheet(response: Response): Response {
  if (!STYLESHEET_INLINED || !response.headers.get("Content-Type")?.startsWith("text/html")) return response;
  return new HTMLRewriter()
    .on("head", {
      element(head) {
        head.prepend(styleElement, { html: true });
      },
    })
    .transform(response);
}
