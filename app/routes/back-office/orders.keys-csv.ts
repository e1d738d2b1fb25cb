// GET /dashboard/orders/keys.csv?variant=&state=available|sold|revoked&from=&to=: stocked keys as a
// CSV streamed page by page (admins: the export capability). Audited with its filters.
import { data } from "react-router";
import { app } from "~/http/context.server";
import { csvResponse } from "~/http/csv.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { checkForm } from "~/lib/form-schema";
import { keyExportSchema } from "~/lib/schemas/orders";
import { exportKeys } from "~/server/orders/order-export.server";
import { exportFilename } from "~/server/platform/csv.server";
import { clientAddress } from "~/http/caller.server";
import type { Route } from "./+types/orders.keys-csv";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("export")];

export async function loader({ request, context }: Route.LoaderArgs) {
  const input = checkForm(keyExportSchema, Object.fromEntries(new URL(request.url).searchParams));
  if (!input.ok) throw data(input.problem.message, { status: 400 });
  const stream = await exportKeys(app(context).db, { viewer: currentViewer(context), ip: clientAddress(request) }, input.value);
  return csvResponse(stream, exportFilename("keys"));
}
