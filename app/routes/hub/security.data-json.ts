// GET /dashboard/security/data.json: the signed-in member's own data, every record the shop keeps
// about them, as a JSON download (decision 099). The dashboard's guard signs them in first.
import { clientAddress } from "~/http/caller.server";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { jsonDownload } from "~/http/json-download.server";
import { notFound } from "~/http/refusals.server";
import { exportMemberData } from "~/server/privacy/member-data.server";
import type { Route } from "./+types/security.data-json";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { id } = currentViewer(context);
  const data = await exportMemberData(app(context), { actorId: id, ip: clientAddress(request) }, id);
  if (!data.ok) throw notFound(data.problem.message);
  return jsonDownload(data.value, "my-data");
}
