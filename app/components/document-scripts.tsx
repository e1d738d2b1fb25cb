// The document's own inline scripts: the intro check in the head and React Router's scroll
// restoration. They do their work from the server's HTML, before hydration. React Router mounts
// the root layout afresh in the browser whenever the root error boundary takes over or hands back
// (a guard's 403, the Access Denied page's return to the dashboard); React would then create these
// <script> elements itself, where they never run, and warns about each. So they render for the
// server HTML and the hydration that adopts it, and not on a later mount.
import { useEffect, useState } from "react";
import { ScrollRestoration, UNSAFE_useScrollRestoration as useScrollRestoration } from "react-router";
import { introHeadScript } from "~/lib/intro";

let documentHydrated = false;

/** True on the server and while hydrating its HTML; false for a layout mounted later in the browser. */
function useInServerHtml(): boolean {
  const [inServerHtml] = useState(() => !documentHydrated);
  useEffect(() => {
    documentHydrated = true;
  }, []);
  return inServerHtml;
}

/** Hides the intro splash before the first paint once seen (static: the CSP allows it by hash). */
export function IntroHeadScript() {
  return useInServerHtml() ? <script dangerouslySetInnerHTML={{ __html: introHeadScript }} /> : null;
}

/** React Router's scroll restoration: its inline script in the server HTML, its hooks always. */
export function ScrollRestorer() {
  return useInServerHtml() ? <ScrollRestoration /> : <ScrollRestorationHooks />;
}

function ScrollRestorationHooks() {
  useScrollRestoration();
  return null;
}
