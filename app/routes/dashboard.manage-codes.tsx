// /dashboard/manage-codes: admin only. Non-admins get 403 from the server and the Access Denied
// screen (the root error boundary), which returns them to the dashboard.
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
