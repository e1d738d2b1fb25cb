// /dashboard/customers/:id: one account as staff see it — profile, orders, subscriptions, keys,
// sessions, sign-in security and reseller balance — and, by role, what may be done to it: ban or
// unban it, end its sessions, credit its balance, change its role, and at the member's request
// download their data or delete the account. Each intent's capability is checked
// before its form is read (app/lib/staff-actions.ts) and again in the domain, and each is audited.
import { Link } from "~/components/link";
import {
  BlockCard,
  PrivacyCard,
  ProfileCard,
  ResellerCard,
  SessionsCard,
  StandingCard,
  SubscriptionsCard,
} from "./+shared/customers/customer-account-cards";
import { CustomerLicencesCard, CustomerOrdersCard } from "./+shared/customers/customer-cards";
import { ArrowLeft } from "~/components/icons";
import { buttonClass } from "~/components/ui/button";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { app, deletionDeps, sessionDeps } from "~/http/context.server";
import { pageAndData, purgePages } from "~/http/edge-cache.server";
import { deleteAccountOnRequest } from "~/server/privacy/account-deletion.server";
import { currentViewer, requireCapability } from "~/http/guards.server";
import { notFound } from "~/http/refusals.server";
import { readStaffAction } from "~/http/staff-action.server";
import { BRAND } from "~/lib/brand";
import { formatUsd } from "~/lib/format";
import type { Result } from "~/lib/result";
import { type Capability, can, ROLE_LABEL } from "~/lib/roles";
import { customerActionSchema, customerInputTitle } from "~/lib/schemas/customers";
import { clientAddress } from "~/http/caller.server";
import { assignRole, banCustomer, endCustomerSessions, unbanCustomer } from "~/server/accounts/customer-actions.server";
import { customerAccount } from "~/server/customers/customers.server";
import { blockCustomer, knownOfCustomer } from "~/server/customers/customer-blocks.server";
import { takenValues } from "~/lib/schemas/fraud";
import { memberRoleSync } from "~/server/discord/role-setup.server";
import { queueRoleSync } from "~/server/discord/role-sync.server";
import { DiscordRolesCard } from "./+shared/customers/discord-roles-card";
import { creditBalance } from "~/server/resellers/reseller-balance.server";
import { resetCooldownMs } from "~/server/licences/licences.server";
import type { Route } from "./+types/customers.account";
import { callerOf } from "~/http/caller.server";

export const middleware: Route.MiddlewareFunction[] = [requireCapability("customers.view")];

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: `${loaderData?.profile.username ?? "Customer"} | ${BRAND}` }];

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const { role, id } = currentViewer(context);
  const allowed = (capability: Capability) => can(role, capability);
  const may = {
    ban: allowed("customers.ban"),
    sessions: allowed("customers.sessions"),
    credit: allowed("balances.credit"),
    role: allowed("roles.assign"),
    block: allowed("blocks.manage"),
    privacy: allowed("customers.privacy"),
  };
  // The account, its Discord roles and what is known of its devices are read side by side.
  const [customer, discord, known] = await Promise.all([
    customerAccount(db, params.id, callerOf(request), resetCooldownMs(env.HWID_RESET_COOLDOWN_DAYS)),
    memberRoleSync(db, params.id),
    may.block ? knownOfCustomer(db, params.id) : null,
  ]);
  if (!customer) throw notFound("No such customer");
  // A fresh id for the credit form each time the page loads (also after each credit it makes).
  return {
    ...customer,
    discord,
    known,
    self: id === customer.profile.id,
    may,
    creditRequest: may.credit ? crypto.randomUUID() : null,
  };
}

const titles: ProblemTitles = {
  invalid: customerInputTitle,
  forbidden: "Not allowed",
  "not-found": "Not found",
  conflict: "Nothing changed",
};

export async function action({ request, params, context }: Route.ActionArgs) {
  const submission = await readStaffAction(request, context, "customer", customerActionSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const { value: input, viewer } = submission;
  const { db, env } = app(context);
  const actor = { viewer, ip: clientAddress(request) };
  const reply = <T,>(result: Result<T>, description: (value: T) => string, title: string) =>
    answer(result, { titles, intent: input.intent, success: (value) => ({ title, description: description(value) }) });
  switch (input.intent) {
    // Their Discord roles follow a ban (or its end) now rather than at the next sweep.
    case "ban": {
      const banned = await banCustomer(sessionDeps(context), actor, params.id, input.reason);
      if (banned.ok) await queueRoleSync(env.JOB_QUEUE, [params.id]);
      return reply(banned, ({ sessionsEnded }) => `Signed out of ${sessionsEnded} session(s); sign-in is refused.`, "Customer banned");
    }
    case "unban": {
      const lifted = await unbanCustomer(db, actor, params.id);
      if (lifted.ok) await queueRoleSync(env.JOB_QUEUE, [params.id]);
      return reply(lifted, () => "They can sign in again.", "Ban lifted");
    }
    case "end-sessions":
      return reply(
        await endCustomerSessions(sessionDeps(context), actor, params.id, input.session),
        ({ ended }) => `${ended} session(s) ended.`,
        "Signed out",
      );
    case "credit":
      return reply(
        await creditBalance(db, viewer, params.id, input, actor.ip),
        ({ balanceCents }) => `The balance is now ${formatUsd(balanceCents)}.`,
        "Balance credited",
      );
    case "block-customer":
      return reply(
        await blockCustomer(db, actor, params.id, { reason: input.reason, expires: input.expires, also: takenValues(input) }),
        ({ blocked }) => `${blocked} new block(s): their orders wait for review, their PCs answer BANNED, their addresses are refused.`,
        "Customer blocked",
      );
    case "role":
      return reply(
        await assignRole(db, actor, params.id, input.role),
        ({ role }) => `Now ${role ? ROLE_LABEL[role] : "a member"}; it applies from their next request.`,
        "Role changed",
      );
    case "delete-account": {
      const deleted = await deleteAccountOnRequest(deletionDeps(context), actor, params.id, input.reason);
      if (deleted.ok)
        await purgePages(
          new URL(request.url).origin,
          deleted.value.reviewedPages.flatMap((handle) => pageAndData(`/product/${handle}`)),
        );
      return reply(
        deleted,
        ({ keysRevoked }) =>
          `Signed out, their words removed and ${keysRevoked} key(s) stopped; their orders stay, anonymised. They were e-mailed.`,
        "Account deleted",
      );
    }
  }
}

export default function CustomerAccount({ loaderData }: Route.ComponentProps) {
  const { profile, orders, moreOrders, subscriptions, licences, sessions, security, reseller, self, may } = loaderData;
  return (
    <div className="space-y-6">
      <Link to="/dashboard/customers" className={buttonClass("ghost", "sm")}>
        <ArrowLeft className="size-4" aria-hidden /> Customers
      </Link>
      <ProfileCard profile={profile} security={security} />
      <StandingCard profile={profile} self={self} may={may} />
      {loaderData.known && !self ? <BlockCard profile={profile} known={loaderData.known} /> : null}
      <CustomerOrdersCard orders={orders} moreOrders={moreOrders} email={profile.email} />
      <SubscriptionsCard subscriptions={subscriptions} />
      <CustomerLicencesCard licences={licences} />
      <DiscordRolesCard discord={loaderData.discord} />
      <SessionsCard sessions={sessions} may={may} />
      <ResellerCard reseller={reseller} may={may} creditRequest={loaderData.creditRequest} />
      <PrivacyCard profile={profile} self={self} may={may} />
    </div>
  );
}
