// The staff pages inside the dashboard's shell: a refused or missing record, or a failure, shows
// where the page would be, and the sidebar stays. Its middleware refuses every account without a
// staff role (403) before any page's own capability check runs, so the back office fails closed.
import { Outlet } from "react-router";
import { DashboardErrorBoundary, errorMeta } from "~/components/error-boundary";
import { requireCapability } from "~/http/guards.server";
import type { Route } from "./+types/layout";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("back-office.enter")];

export default function BackOffice() {
  return <Outlet />;
}

export const meta: Route.MetaFunction = ({ error }) => errorMeta(error);

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <DashboardErrorBoundary error={error} missing="The order, customer or page you asked for does not exist." />;
}
