// What a page says when it cannot be shown: not found, not allowed, or something broke (with the
// reference the server logged it under). Each names the way back that suits its area. Pages draw
// these through ./error-boundary.tsx, which fetches this module in the browser when one is needed
// (decision 114); each page's outermost element carries `data-status-page`, by which the browser
// knows to fetch it before hydrating a page the server drew with it.
//
// The one shape of every area's error boundary (decision 053): an answer thrown with a status goes
// to the area's handler for that status (403 and 404 say so calmly, inside the area's shell); a
// 500 says something went wrong, with the reference the server logged it under; anything else is
// shown by the message it carries.
import { ShieldAlert } from "~/components/icons";
import { type ReactNode, useEffect } from "react";
import { type ErrorResponse, isRouteErrorResponse, useNavigate } from "react-router";
import { Link } from "~/components/link";
import { thrownBody } from "./thrown-body";
import { buttonClass } from "./ui/button";

/** Where a status page sends the reader on. */
export interface WayBack {
  to: string;
  label: string;
}

export const HOME: WayBack = { to: "/", label: "Return to Home" };
export const DASHBOARD: WayBack = { to: "/dashboard", label: "Back to the dashboard" };

export function NotFoundPage({ title = "Oops! Page not found", detail, back = HOME }: { title?: string; detail?: string; back?: WayBack }) {
  return (
    <section data-status-page className="mx-auto flex min-h-[60vh] max-w-xl flex-col items-center justify-center px-4 text-center">
      <p className="text-7xl font-black text-accent">404</p>
      <h1 className="mt-4 text-2xl font-bold">{title}</h1>
      {detail ? <p className="mt-2 text-muted">{detail}</p> : null}
      <Link to={back.to} className={buttonClass("primary", "md", "mt-8")}>
        {back.label}
      </Link>
    </section>
  );
}

export const ACCESS_DENIED_REDIRECT_MS = 2000;

/** Shown to a signed-in member who opens an admin page; returns them to the dashboard. */
export function AccessDenied() {
  const navigate = useNavigate();
  useEffect(() => {
    const timer = setTimeout(() => navigate("/dashboard", { replace: true }), ACCESS_DENIED_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [navigate]);
  return (
    <section data-status-page role="alert" className="flex min-h-[50vh] flex-col items-center justify-center text-center">
      <ShieldAlert className="size-12 text-red-500" aria-hidden />
      <h1 className="mt-4 text-2xl font-bold">Access Denied</h1>
      <p className="mt-2 text-muted">You don't have permission to access this page</p>
    </section>
  );
}

/** `reference`: what the server logged the error under, for the reader to quote to support. */
export function ErrorPage({ message, reference, back = HOME }: { message: string; reference?: string; back?: WayBack }) {
  return (
    <section
      data-status-page
      role="alert"
      className="mx-auto flex min-h-[50vh] max-w-xl flex-col items-center justify-center px-4 text-center"
    >
      <h1 className="text-2xl font-bold">Something went wrong</h1>
      <p className="mt-2 text-muted">{message}</p>
      {reference ? (
        <p className="mt-4 text-sm text-muted">
          If it keeps happening, tell support this reference:{" "}
          <code className="rounded bg-panel-2 px-1.5 py-0.5 font-mono text-zinc-100 select-all">{reference}</code>
        </p>
      ) : null}
      <Link to={back.to} className={buttonClass("outline", "md", "mt-8")}>
        {back.label}
      </Link>
    </section>
  );
}

export type StatusHandlers = Partial<Record<number, (error: ErrorResponse) => ReactNode>>;

const UNEXPECTED = "An unexpected error occurred. Please try again in a moment.";

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
