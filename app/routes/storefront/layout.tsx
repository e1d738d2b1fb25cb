// The storefront's pages: the site's header and footer come from the root layout, and a page that
// cannot be shown says so between them (a calm 404; anything else with its reference).
import { Outlet } from "react-router";
import { errorMeta, GeneralErrorBoundary, NotFoundPage } from "~/components/error-boundary";
import type { Route } from "./+types/layout";

export default function Storefront() {
  return <Outlet />;
}

export const meta: Route.MetaFunction = ({ error }) => errorMeta(error);

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <GeneralErrorBoundary error={error} statusHandlers={{ 404: () => <NotFoundPage /> }} />;
}
