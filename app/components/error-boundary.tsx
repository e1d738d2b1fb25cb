// The error boundaries and status pages as every area draws them. Their code (./status-pages.tsx)
// is fetched when a page needs one, not with every page (decision 114): the server loads it once
// per isolate, and the browser before hydrating a page the server drew with one
// (`preloadStatusPages`, app/entry.client.tsx) or on the first error after that.
import { type ComponentType, Suspense } from "react";
import { isRouteErrorResponse, type MetaDescriptor } from "react-router";
import { fetchedOnce } from "./lazy";
import type * as statusPagesModule from "./status-pages";

type StatusPages = typeof statusPagesModule;

const statusPages = fetchedOnce(() => import("./status-pages"));

/** Fetches the status pages' code, once. */
export const preloadStatusPages = statusPages.preload;

// The server has them ready before its first page.
if (import.meta.env.SSR) void preloadStatusPages();

/** A page of the status pages, drawn at once when their code is there and waiting for it otherwise. */
function statusPage<Props extends object>(name: string, pick: (pages: StatusPages) => ComponentType<Props>) {
  function Drawn(props: Props) {
    const Component = pick(statusPages.useLoaded());
    return <Component {...props} />;
  }
  function StatusPage(props: Props) {
    return (
      <Suspense fallback={null}>
        <Drawn {...props} />
      </Suspense>
    );
  }
  StatusPage.displayName = name;
  return StatusPage;
}

export const GeneralErrorBoundary = statusPage("GeneralErrorBoundary", (pages) => pages.GeneralErrorBoundary);
export const DashboardErrorBoundary = statusPage("DashboardErrorBoundary", (pages) => pages.DashboardErrorBoundary);
export const NotFoundPage = statusPage("NotFoundPage", (pages) => pages.NotFoundPage);
export const AccessDenied = statusPage("AccessDenied", (pages) => pages.AccessDenied);

/**
 * The document's title while an area's boundary stands in for a page: the page's own meta is not
 * asked when its loader threw, so the area's layout names what is shown.
 */
export function errorMeta(error: unknown): MetaDescriptor[] {
  if (!error) return [];
  if (isRouteErrorResponse(error) && error.status === 404) return [{ title: "Page not found" }];
  if (isRouteErrorResponse(error) && error.status === 403) return [{ title: "Access denied" }];
  return [{ title: "Something went wrong" }];
}
