// GET /dashboard/orders/export.csv?<the list's filters>: every order the filters select, as a CSV
// streamed page by page (admins: the export capability). Audited with its filters.
import { data } from "react-router";
import { app } from "~/http/context.server";
import { csvResponse } from "~/http/csv.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { checkForm } from "~/lib/form-schema";
import { orderListSchema } from "~/lib/schemas/orders";
import { exportOrders } from "~/server/orders/order-export.server";
import { exportFilename } from "~/server/platform/csv.server";
import { orderFilters } from "~/server/orders/order-list.server";
import { clientAddress } from "~/http/caller.server";
import type { Route } from "./+types/orders.export-csv";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("export")];

export async function loader({ request, context }: Route.LoaderArgs) {
  const input = checkForm(orderListSchema, Object.fromEntries(new URL(request.url).searchParams));
  if (!input.ok) throw data(input.problem.message, { status: 400 });
  const stream = await exportOrders(
    app(context).db,
    { viewer: currentViewer(context), ip: clientAddress(request) },
    orderFilters(input.value),
  );
  return csvResponse(stream, exportFilename("orders"));
}
