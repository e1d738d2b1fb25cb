// /dashboard/manage-codes: admin only. Non-admins get 403 from the server and the Access Denied
// screen, which returns them to the dashboard.
import { isRouteErrorResponse } from "react-router";
import { AccessDenied, ErrorPage } from "~/components/status-pages";
import { BRAND } from "~/lib/brand";
import { requireAdmin } from "~/server/guards.server";
import type { Route } from "./+types/dashboard.manage-codes";

export const middleware: Route.MiddlewareFunction[] = [requireAdmin];

export const meta: Route.MetaFunction = () => [{ title: `Manage Codes | ${BRAND}` }];

export function loader() {
  return null;
}

export default function ManageCodes() {
  return <h1 className="text-3xl font-black tracking-tight">MANAGE CODES</h1>;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  if (isRouteErrorResponse(error) && error.status === 403) return <AccessDenied />;
  return <ErrorPage message="The code manager could not be loaded." />;
}
