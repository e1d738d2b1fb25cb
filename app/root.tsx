import type { ReactNode } from "react";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLocation,
  useRouteLoaderData,
} from "react-router";
import { SiteFooter } from "~/components/site-footer";
import { SiteNav } from "~/components/site-nav";
import { AccessDenied, ErrorPage, NotFoundPage } from "~/components/status-pages";
import { ToastProvider } from "~/components/toaster";
import { ViewerProvider } from "~/components/viewer";
import type { Route } from "./+types/root";
import "./app.css";

export function loader() {
  // Public and identical for every visitor: nothing here may depend on the session.
  return { productsHref: "/products" };
}

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const productsHref = data?.productsHref ?? "/products";
  const { pathname } = useLocation();
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#0b0b10" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <Meta />
        <Links />
      </head>
      <body>
        <a href="#main" className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-[200] focus:rounded focus:bg-accent focus:px-3 focus:py-2 focus:text-zinc-950">
          Skip to content
        </a>
        <ToastProvider>
          <ViewerProvider>
            <SiteNav productsHref={productsHref} />
            <main id="main" className="pt-16">
              {children}
            </main>
            {pathname.startsWith("/dashboard") ? null : <SiteFooter productsHref={productsHref} />}
          </ViewerProvider>
        </ToastProvider>
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFoundPage />;
  // Guards run as middleware, before any loader, so a refusal lands here rather than in the page.
  if (isRouteErrorResponse(error) && error.status === 403) return <AccessDenied />;
  if (isRouteErrorResponse(error)) return <ErrorPage message={`${error.status} ${error.statusText}`.trim()} />;
  if (import.meta.env.DEV && error instanceof Error) return <ErrorPage message={error.message} />;
  return <ErrorPage message="An unexpected error occurred. Please try again in a moment." />;
}
