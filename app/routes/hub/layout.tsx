// The member's pages inside the dashboard's shell: a page that fails shows why where the page
// would be, and the sidebar stays.
import { Outlet } from "react-router";
import { DashboardErrorBoundary, errorMeta } from "~/components/error-boundary";
import type { Route } from "./+types/layout";

export default function Hub() {
  return <Outlet />;
}

export const meta: Route.MetaFunction = ({ error }) => errorMeta(error);

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <DashboardErrorBoundary error={error} missing="There is no such page in your dashboard." />;
}
