// The staff pages inside the dashboard's shell: a refused or missing record, or a failure, shows
// where the page would be, and the sidebar stays.
import { Outlet } from "react-router";
import { DashboardErrorBoundary, errorMeta } from "~/components/error-boundary";
import type { Route } from "./+types/layout";

export default function BackOffice() {
  return <Outlet />;
}

export const meta: Route.MetaFunction = ({ error }) => errorMeta(error);

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <DashboardErrorBoundary error={error} missing="The order, customer or page you asked for does not exist." />;
}
