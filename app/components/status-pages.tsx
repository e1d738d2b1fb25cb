// What a page says when it cannot be shown: not found, not allowed, or something broke (with the
// reference the server logged it under). Each names the way back that suits its area.
import { ShieldAlert } from "~/components/icons";
import { useEffect } from "react";
import { Link, useNavigate } from "react-router";
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
    <section className="mx-auto flex min-h-[60vh] max-w-xl flex-col items-center justify-center px-4 text-center">
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
    <section role="alert" className="flex min-h-[50vh] flex-col items-center justify-center text-center">
      <ShieldAlert className="size-12 text-red-500" aria-hidden />
      <h1 className="mt-4 text-2xl font-bold">Access Denied</h1>
      <p className="mt-2 text-muted">You don't have permission to access this page</p>
    </section>
  );
}

/** `reference`: what the server logged the error under, for the reader to quote to support. */
export function ErrorPage({ message, reference, back = HOME }: { message: string; reference?: string; back?: WayBack }) {
  return (
    <section role="alert" className="mx-auto flex min-h-[50vh] max-w-xl flex-col items-center justify-center px-4 text-center">
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
