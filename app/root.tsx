import { type ReactNode, Suspense } from "react";
import { isRouteErrorResponse, Links, Meta, Outlet, Scripts, useLocation } from "react-router";
import { CartProvider } from "~/components/cart/cart-context";
import { CartDrawer } from "~/components/cart/cart-drawer";
import { SiteNav } from "~/components/site-nav";
import { AccessDenied, DashboardErrorBoundary, GeneralErrorBoundary, NotFoundPage } from "~/components/error-boundary";
import { thrownBody } from "~/components/thrown-body";
import { type ShopSettings, useShop } from "~/components/shop";
import { IntroHeadScript, ScrollRestorer } from "~/components/document-scripts";
import { lazyComponent } from "~/components/lazy";
import { hydratedOnView } from "~/components/hydrate-on-view";
import { ToastProvider } from "~/components/toaster";
import { ViewerProvider } from "~/components/viewer";
import { app } from "~/http/context.server";
import type { Route } from "./+types/root";
import { DOCUMENTS_SHAPED } from "~/lib/stylesheet";
import { inSignedInArea } from "~/lib/entry-paths";
import stylesheet from "./app.css?url";

// Drawn here only around a refused staff page; the dashboard's own layout imports it as usual.
const ShellAroundRefusal = lazyComponent(() => import("~/components/dashboard-shell").then((module) => module.ShellAroundRefusal));

// Below every storefront page's first screen: its code comes when it is about to be seen. It is
// drawn outside the providers, whose values change once the page has loaded.
const SiteFooter = hydratedOnView(() => import("~/components/site-footer").then((module) => module.SiteFooter));

export async function loader({ context }: Route.LoaderArgs): Promise<ShopSettings> {
  // Public and identical for every visitor: nothing here may depend on the session.
  const { env, catalogue } = app(context);
  const shop = { communityUrl: env.COMMUNITY_URL, supportEmail: env.SUPPORT_EMAIL, heroVideoId: env.HERO_VIDEO_ID };
  // "Products" in the top bar opens the main (first) product; the footer's goes to /products.
  try {
    const [main] = await catalogue.listProducts({ first: 1, variantsFirst: 1, imagesFirst: 1 });
    return { ...shop, productsHref: main ? `/product/${main.handle}` : "/products" };
  } catch (error) {
    console.error("Failed to load the main product for the navigation:", error);
    return { ...shop, productsHref: "/products" };
  }
}

export function Layout({ children }: { children: ReactNode }) {
  const { productsHref } = useShop();
  const { pathname } = useLocation();
  return (
    // The intro's head script may mark <html> (data-intro-seen) before React hydrates it; that
    // attribute is meant to differ from the server's, and only this element's own attributes do.
    <html lang="en" suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#0b0b10" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        {/* Only on the development server: everywhere else the Worker writes the stylesheet, or
            the first screen's part of it, into the document itself. */}
        {DOCUMENTS_SHAPED ? null : <link rel="stylesheet" href={stylesheet} precedence="default" />}
        <IntroHeadScript />
        <Meta />
        {/* No nonce on links: the CSP allows stylesheets by origin, and the browser has no nonce to
            hydrate them with. */}
        <Links nonce="" />
      </head>
      <body>
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-[200] focus:rounded focus:bg-accent focus:px-3 focus:py-2 focus:text-zinc-950"
        >
          Skip to content
        </a>
        <ToastProvider>
          <ViewerProvider>
            <CartProvider>
              <SiteNav productsHref={productsHref} />
              <main id="main" className="pt-16">
                {children}
              </main>
              <CartDrawer />
            </CartProvider>
          </ViewerProvider>
        </ToastProvider>
        {inSignedInArea(pathname) ? null : <SiteFooter />}
        <ScrollRestorer />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

/**
 * The last resort, and where a refused staff page lands: guards run as middleware, before any
 * loader, so React Router draws their refusal from here. The refusal carries the dashboard's shell,
 * which goes around the calm message as it would around the page.
 */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const general = <GeneralErrorBoundary error={error} statusHandlers={{ 403: () => <AccessDenied />, 404: () => <NotFoundPage /> }} />;
  const carried = isRouteErrorResponse(error) ? thrownBody(error).shell : undefined;
  if (typeof carried !== "object" || carried === null) return general;
  const refusal = <DashboardErrorBoundary error={error} missing="The page you asked for does not exist." />;
  return (
    // The calm message alone until the shell's code is there (on the server, one step later).
    <Suspense fallback={refusal}>
      <ShellAroundRefusal carried={carried} refusal={refusal} otherwise={general} />
    </Suspense>
  );
}
