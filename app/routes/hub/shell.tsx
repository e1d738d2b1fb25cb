// The dashboard's shell route: the sidebar around every /dashboard page (app/components/dashboard-shell).
// Its middleware sends signed-out visitors to /auth before any dashboard loader or action runs.
import { Outlet } from "react-router";
import { DashboardShell } from "~/components/dashboard-shell";
import { currentViewer, requireUser } from "~/http/guards.server";
import { dashboardShell } from "~/lib/dashboard";
import type { Route } from "./+types/shell";

export const middleware: Route.MiddlewareFunction[] = [requireUser];

export function loader({ context }: Route.LoaderArgs) {
  return dashboardShell(currentViewer(context));
}

export const meta: Route.MetaFunction = () => [{ name: "robots", content: "noindex" }];

export default function DashboardLayout({ loaderData }: Route.ComponentProps) {
  return (
    <DashboardShell {...loaderData}>
      <Outlet />
    </DashboardShell>
  );
}
