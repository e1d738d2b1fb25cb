// GET /dashboard/customers/:id/data.json: a member's data, downloaded by an admin to hand to the
// member who asked for it (decision 099); audited.
import { clientAddress } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { jsonDownload } from "~/http/json-download.server";
import { notFound } from "~/http/refusals.server";
import { exportMemberData } from "~/server/privacy/member-data.server";
import type { Route } from "./+types/customers.data-json";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("customers.privacy")];

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const data = await exportMemberData(app(context), { actorId: currentViewer(context).id, ip: clientAddress(request) }, params.id);
  if (!data.ok) throw notFound(data.problem.message);
  return jsonDownload(data.value, `member-data-${params.id}`);
}
