// Hydrates the document. A page the server drew as a status page (not found, access denied,
// something went wrong) fetches that code first, so the page hydrates as drawn (decision 114).
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { HydratedRouter } from "react-router/dom";
import { preloadStatusPages } from "~/components/error-boundary";

async function hydrate() {
  if (document.querySelector("[data-status-page]")) await preloadStatusPages();
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <HydratedRouter />
      </StrictMode>,
    );
  });
}

void hydrate();
