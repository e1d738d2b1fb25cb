// The one shape of every area's error boundary (decision 053): an answer thrown with a status goes
// to the area's handler for that status (403 and 404 say so calmly, inside the area's shell); a
// 500 says something went wrong, with the reference the server logged it under; anything else is
// shown by the message it carries.
import type { ReactNode } from "react";
import { type ErrorResponse, isRouteErrorResponse, type MetaDescriptor } from "react-router";
import { AccessDenied, DASHBOARD, ErrorPage, HOME, NotFoundPage, type WayBack } from "./status-pages";

export type StatusHandlers = Partial<Record<number, (error: ErrorResponse) => ReactNode>>;

/** A thrown answer's body, as far as it can be read: its message, the 500's reference, a refusal's shell. */
export function thrownBody(error: ErrorResponse): { message?: string; reference?: string; shell?: unknown } {
  const body: unknown = error.data;
  if (typeof body !== "object" || body === null) return typeof body === "string" && body ? { message: body } : {};
  const { message, reference, shell } = body as Record<string, unknown>;
  return {
    message: typeof message === "string" ? message : undefined,
    reference: typeof reference === "string" ? reference : undefined,
    shell,
  };
}

const UNEXPECTED = "An unexpected error occurred. Please try again in a moment.";

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

export function GeneralErrorBoundary({
  error,
  statusHandlers = {},
  back = HOME,
}: {
  error: unknown;
  statusHandlers?: StatusHandlers;
  back?: WayBack;
}) {
  if (isRouteErrorResponse(error)) {
    const handler = statusHandlers[error.status];
    if (handler) return handler(error);
    const { message, reference } = thrownBody(error);
    if (error.status >= 500) return <ErrorPage message={message ?? UNEXPECTED} reference={reference} back={back} />;
    return <ErrorPage message={message ?? `${error.status} ${error.statusText}`.trim()} back={back} />;
  }
  // Not an answer: a page that failed to draw, or an error whose details the server keeps to itself.
  if (import.meta.env.DEV && error instanceof Error) return <ErrorPage message={error.message} back={back} />;
  return <ErrorPage message={UNEXPECTED} back={back} />;
}

/** A dashboard page that failed, inside the shell: 403 and 404 calmly, anything else with its reference. */
export function DashboardErrorBoundary({ error, missing }: { error: unknown; missing: string }) {
  return (
    <GeneralErrorBoundary
      error={error}
      back={DASHBOARD}
      statusHandlers={{ 403: () => <AccessDenied />, 404: () => <NotFoundPage title="Not found" detail={missing} back={DASHBOARD} /> }}
    />
  );
}
