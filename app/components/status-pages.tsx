// Full-page answers for "not found", "not allowed" and "something broke".
import { ShieldAlert } from "~/components/icons";
import { useEffect } from "react";
import { Link, useNavigate } from "react-router";
import { buttonClass } from "./ui/button";

export function NotFoundPage() {
  return (
    <section className="mx-auto flex min-h-[60vh] max-w-xl flex-col items-center justify-center px-4 text-center">
      <p className="text-7xl font-black text-accent">404</p>
      <h1 className="mt-4 text-2xl font-bold">Oops! Page not found</h1>
      <Link to="/" className={buttonClass("primary", "md", "mt-8")}>
        Return to Home
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

export function ErrorPage({ message }: { message: string }) {
  return (
    <section role="alert" className="mx-auto flex min-h-[50vh] max-w-xl flex-col items-center justify-center px-4 text-center">
      <h1 className="text-2xl font-bold">Something went wrong</h1>
      <p className="mt-2 text-muted">{message}</p>
      <Link to="/" className={buttonClass("outline", "md", "mt-8")}>
        Return to Home
      </Link>
    </section>
  );
}
