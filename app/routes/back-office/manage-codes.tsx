// /dashboard/manage-codes: admin only (capability stock.manage). Others get 403 from the server
// (loader, and every card action: those routes nest under this one and share its middleware) and
// the Access Denied screen (the root error boundary), which returns them to the dashboard. Each
// card is its own module in app/components/admin; its forms post to the stock or crypto-orders
// route under this one.
import { useEffect } from "react";
import * as v from "valibot";
import { AddCodesCard } from "./+shared/manage-codes/add-codes-card";
import { AvailableCodesCard } from "./+shared/manage-codes/available-codes-card";
import { BulkDeleteCard } from "./+shared/manage-codes/bulk-delete-card";
import { BackordersCard } from "./+shared/manage-codes/backorders-card";
import { CryptoOrdersCard } from "./+shared/manage-codes/crypto-orders-card";
import { LowStockWarning } from "~/components/low-stock-warning";
import { LicencesCard } from "./+shared/licence-lookup";
import { SoldCodesCard } from "./+shared/manage-codes/sold-codes-card";
import { StockLevelsCard } from "./+shared/manage-codes/stock-levels-card";
import { WebhookCard } from "./+shared/manage-codes/webhook-card";
import { ShieldCheck } from "~/components/icons";
import { useToast } from "~/components/toaster";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { periodStart } from "~/lib/periods";
import { codeFiltersSchema } from "~/lib/schemas/stock";
import { allVariants } from "~/server/catalogue/catalogue.server";
import { HANDLED_TOPICS, latestDeliveries } from "~/server/orders/shopify-webhook.server";
import { stockLevels } from "~/server/keys/stock-alerts.server";
import { openBackorders } from "~/server/orders/backorders.server";
import { availableCodes, soldCodes } from "~/server/keys/stock.server";
import type { SeenPayment } from "~/server/crypto/crypto-orders.server";
import { ordersNeedingReview } from "~/server/crypto/crypto-review.server";
import { cryptoSetup } from "~/server/crypto/crypto-setup.server";
import { deadJobs } from "~/server/platform/job-queue.server";
import { recentBulkChanges } from "~/server/platform/bulk-changes.server";
import type { Route } from "./+types/manage-codes";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("stock.manage")];

export const meta: Route.MetaFunction = () => [{ title: `Manage Codes | ${BRAND}` }];

export async function loader({ request, context }: Route.LoaderArgs) {
  const { db, env, catalogue } = app(context);
  const url = new URL(request.url);
  const filters = v.parse(codeFiltersSchema, Object.fromEntries(url.searchParams));
  const catalogueVariants = allVariants(catalogue).then(
    (variants) => variants.map((v) => ({ id: v.variant.id, title: v.title })),
    (error: unknown) => {
      console.error("Failed to load products for the code manager:", error);
      return null;
    },
  );
  const [variants, levels, available, sold, backorders, cryptoQueue, deliveries, failedJobs, bulkDeletions] = await Promise.all([
    catalogueVariants,
    catalogueVariants.then((variants) => stockLevels(db, variants ?? [])),
    availableCodes(db, filters.available || undefined),
    soldCodes(db, { variantId: filters.sold || undefined, since: periodStart(filters.period, Date.now(), filters.tz) }),
    openBackorders(db),
    ordersNeedingReview(db),
    latestDeliveries(db),
    deadJobs(db),
    recentBulkChanges(db, ["stock-delete"]),
  ]);
  return {
    variants: variants ?? [],
    variantsFailed: variants === null,
    levels,
    available,
    sold,
    bulkDeletions,
    backorders,
    cryptoQueue: cryptoQueue.map((order) => ({
      id: order.id,
      orderNumber: order.orderNumber,
      purpose: order.purpose,
      status: order.status,
      review: order.review,
      paid: order.paidAt !== null,
      productTitle: order.productTitle,
      variantTitle: order.variantTitle,
      customerEmail: order.customerEmail,
      amountCents: order.amountCents,
      cryptoType: order.cryptoType,
      walletAddress: order.walletAddress,
      amountUnits: order.amountUnits,
      receivedUnits: order.receivedUnits,
      payments: JSON.parse(order.payments) as SeenPayment[],
      transactionId: order.transactionId,
      createdAt: order.createdAt,
      updatedAt: order.updatedAt,
    })),
    // What keeps crypto payments (or a coin) off, for the admin to fix.
    cryptoProblems: cryptoSetup(env, db).problems,
    filters,
    webhook: {
      endpoint: `${url.origin}/webhooks/shopify`,
      secretSet: Boolean(env.SHOPIFY_WEBHOOK_SECRET),
      topics: HANDLED_TOPICS,
      deliveries,
      failedJobs,
    },
  };
}

export default function ManageCodes({ loaderData }: Route.ComponentProps) {
  const { variants, variantsFailed, levels, available, sold, bulkDeletions, backorders, cryptoQueue, cryptoProblems, filters, webhook } =
    loaderData;
  const { toast } = useToast();
  useEffect(() => {
    if (variantsFailed) toast({ title: "Failed to load products", variant: "destructive" });
  }, [variantsFailed, toast]);

  return (
    <div className="space-y-8">
      <h1 className="flex items-center gap-3 text-3xl font-black tracking-tight">
        MANAGE CODES <ShieldCheck className="size-6 text-accent" aria-label="Admin" />
      </h1>
      <LowStockWarning rows={levels.filter((level) => level.low)} />
      <div className="grid grid-cols-1 gap-8 xl:grid-cols-2">
        <AddCodesCard variants={variants} />
        <AvailableCodesCard codes={available} variants={variants} variantId={filters.available} />
      </div>
      <BulkDeleteCard variants={variants} changes={bulkDeletions} />
      <StockLevelsCard levels={levels} />
      <SoldCodesCard codes={sold} variants={variants} variantId={filters.sold} period={filters.period} />
      <div className="grid grid-cols-1 gap-8 xl:grid-cols-2">
        <BackordersCard backorders={backorders} />
        <CryptoOrdersCard orders={cryptoQueue} problems={cryptoProblems} />
      </div>
      <WebhookCard {...webhook} />
      <LicencesCard />
    </div>
  );
}
