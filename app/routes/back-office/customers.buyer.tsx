// /dashboard/customers/email/:email: a buyer known only by e-mail (they paid without an account):
// their orders and the keys held under the address. An address that belongs to an account goes
// to that account's page instead.
import { redirect } from "react-router";
import { Link } from "~/components/link";
import { CustomerBadges } from "./+shared/customers/customer-badges";
import { CustomerLicencesCard, CustomerOrdersCard } from "./+shared/customers/customer-cards";
import { ArrowLeft } from "~/components/icons";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { app } from "~/http/context.server";
import { requireCapability } from "~/http/guards.server";
import { notFound } from "~/http/refusals.server";
import { BRAND } from "~/lib/brand";
import { customerByEmail } from "~/server/customers/customers.server";
import { resetCooldownMs } from "~/server/licences/licences.server";
import type { Route } from "./+types/customers.buyer";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("customers.view")];

export const meta: Route.MetaFunction = ({ params }) => [{ title: `${params.email} | ${BRAND}` }];

export async function loader({ params, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const email = params.email.trim();
  if (!email.includes("@") || email.length > 254) throw notFound("Not an e-mail address");
  const buyer = await customerByEmail(db, email, resetCooldownMs(env.HWID_RESET_COOLDOWN_DAYS));
  if (buyer.accountId !== null) throw redirect(`/dashboard/customers/${buyer.accountId}`);
  return buyer;
}

export default function CustomerBuyer({ loaderData }: Route.ComponentProps) {
  const { email, orders, moreOrders, licences } = loaderData;
  return (
    <div className="space-y-6">
      <Link to="/dashboard/customers" className={buttonClass("ghost", "sm")}>
        <ArrowLeft className="size-4" aria-hidden /> Customers
      </Link>
      <Card className="space-y-2">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-black break-all">{email}</h1>
          <CustomerBadges role={null} bannedAt={null} hasAccount={false} />
        </div>
        <p className="text-sm text-muted">
          A buyer without an account. Should they register with this address and verify it, their keys become their account's.
        </p>
      </Card>
      <CustomerOrdersCard orders={orders} moreOrders={moreOrders} email={email} />
      <CustomerLicencesCard licences={licences} />
    </div>
  );
}
