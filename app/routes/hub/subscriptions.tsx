// /dashboard/subscriptions: the member's current plan and keys with their licences (state, PC,
// last check, resets), past subscriptions, and the plans. Its action is the member's own Reset PC,
// which the reseller panel's keys post to as well.
import { Link } from "~/components/link";
import { useId } from "react";
import { copyText } from "~/components/copy";
import { Check, Copy, RotateCcw } from "~/components/icons";
import { LicenceDetails, LicenceExpiry, ResetPcForm } from "~/components/licence-details";
import { LocalTime } from "~/components/local-time";
import { OrderRef } from "~/components/order-ref";
import { useShop } from "~/components/shop";
import { useToast } from "~/components/toaster";
import { useRecheckWhile } from "~/components/use-recheck";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import { BRAND } from "~/lib/brand";
import { ownerCanReset } from "~/lib/licences";
import { PLAN_NAME, variantLabel } from "~/lib/plans";
import { resetHwidSchema } from "~/lib/schemas/licences";
import { answer, answerInvalid, type ProblemTitles } from "~/http/answer.server";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { passRetryAfter } from "~/http/retry-after.server";
import { readSubmission } from "~/http/submission.server";
import { orderOnItsWayRead } from "~/server/orders/shopify-webhook.server";
import { subscriptionsRead } from "~/server/licences/subscriptions.server";
import { autoRenewedRead } from "~/server/renewals/balance-renewals.server";
import { readTogether } from "~/server/platform/db/reads.server";
import { clientAddress } from "~/http/caller.server";
import { licencesRead, resetCooldownDays, resetCooldownMs, resetOwnHwid } from "~/server/licences/licences.server";
import {
  replacementRequestsOfOwnerRead,
  requestReplacement,
  withinReplacementWindow,
} from "~/server/replacements/replacement-requests.server";
import { replacementRequestSchema } from "~/lib/schemas/replacements";
import * as v from "valibot";
import { ReplacementRequest } from "./+shared/replacement-request";
import type { Route } from "./+types/subscriptions";

export const meta: Route.MetaFunction = () => [{ title: `Subscriptions | ${BRAND}` }];

export const headers = passRetryAfter;

export async function loader({ context }: Route.LoaderArgs) {
  const { db, env } = app(context);
  const viewer = currentViewer(context);
  const now = Date.now();
  // Every read of the page goes to D1 as one batch: one round trip, as the session's read is one.
  const [all, licences, onItsWay, autoRenewed, requests] = await readTogether(db, [
    subscriptionsRead(db, viewer.id),
    licencesRead(db, viewer, resetCooldownMs(env.HWID_RESET_COOLDOWN_DAYS), now),
    orderOnItsWayRead(db, viewer.email),
    autoRenewedRead(db, viewer.id),
    replacementRequestsOfOwnerRead(db, viewer),
  ]);
  const rows = all.map((s) => {
    const licence = (s.code && licences.get(s.code)) || null;
    // Asked once per key; the form shows while the key may still be replaced.
    const replacement = licence
      ? {
          request: requests.get(licence.id) ?? null,
          open: licence.state !== "revoked" && withinReplacementWindow(licence.activatedAt, now),
        }
      : null;
    // A subscription past its expiry counts as expired even before the hourly job marks it; a
    // paused key's time stands still, so its subscription stays current.
    const runOut = s.expiryDate !== null && s.expiryDate <= now && licence?.state !== "paused";
    return {
      ...s,
      status: s.status === "active" && runOut ? "expired" : s.status,
      licence,
      replacement,
      autoRenew: licence !== null && autoRenewed.has(licence.id),
    };
  });
  return {
    active: rows.filter((s) => s.status === "active"),
    past: rows.filter((s) => s.status !== "active"),
    onItsWay,
    cooldownDays: resetCooldownDays(env.HWID_RESET_COOLDOWN_DAYS),
  };
}

const NOT_RESET = "PC not reset";
const resetTitles: ProblemTitles = {
  invalid: NOT_RESET,
  "not-found": NOT_RESET,
  forbidden: NOT_RESET,
  conflict: NOT_RESET,
  "rate-limited": "Too soon to reset",
};

const NOT_ASKED = "Replacement not requested";
const memberActions = v.variant("intent", [resetHwidSchema, replacementRequestSchema]);

export async function action({ request, context }: Route.ActionArgs) {
  const { db, env } = app(context);
  const submission = await readSubmission(request, memberActions);
  if (!submission.ok) return answerInvalid(submission, { titles: resetTitles });
  if (submission.value.intent === "request-replacement") {
    return answer(await requestReplacement(db, currentViewer(context), submission.value), {
      intent: "request-replacement",
      success: { title: "Replacement requested", description: "Staff will look at it and e-mail you their answer." },
      titles: { "not-found": NOT_ASKED, conflict: NOT_ASKED },
    });
  }
  return answer(
    await resetOwnHwid(
      db,
      currentViewer(context),
      submission.value.licenceId,
      resetCooldownMs(env.HWID_RESET_COOLDOWN_DAYS),
      clientAddress(request),
    ),
    {
      success: { title: "PC reset", description: "The next validation binds the new PC." },
      titles: resetTitles,
    },
  );
}

const PLANS = [
  { name: "Daily", price: "$9.99", period: "24 Hours", features: ["All Features", "Discord Support", "Instant Activation"] },
  {
    name: "Weekly",
    price: "$29.99",
    period: "7 Days",
    popular: true,
    features: ["All Features", "Priority Support", "Free Updates", "Config Library"],
  },
  {
    name: "Monthly",
    price: "$89.99",
    period: "30 Days",
    features: ["All Features", "VIP Support", "Free Updates", "Exclusive Configs", "Beta Access"],
  },
];

const STATUS_TONE: Record<string, BadgeTone> = { active: "green", expired: "gray", revoked: "red" };

type Subscription = Awaited<ReturnType<typeof loader>>["active"][number];

function KeyLine({ code }: { code: string | null }) {
  const { toast } = useToast();
  if (!code) return null;
  return (
    <p className="mt-3 flex items-center gap-2 rounded-md border border-line bg-panel-2 px-3 py-2 font-mono text-sm">
      <span className="min-w-0 flex-1 break-all">{code}</span>
      <button
        type="button"
        className="rounded p-1 text-muted hover:text-white"
        aria-label="Copy product key"
        onClick={() => copyText(code, toast, { title: "Code copied to clipboard!" })}
      >
        <Copy className="size-4" aria-hidden />
      </button>
    </p>
  );
}

/** A current plan without an expiry runs "Never" out; a past one without an expiry shows "N/A". */
function SubscriptionCard({ s, cooldownDays }: { s: Subscription; cooldownDays: number }) {
  const active = s.status === "active";
  const titleId = useId();
  return (
    <Card as="article" aria-labelledby={titleId}>
      <div className="flex flex-wrap items-center gap-3">
        <p id={titleId} className="font-semibold">
          {s.productTitle} — {variantLabel(s.variantTitle)}
        </p>
        <Badge tone={STATUS_TONE[s.status] ?? "gray"}>{s.status.charAt(0).toUpperCase() + s.status.slice(1)}</Badge>
        {s.orderId ? <OrderRef name={s.orderName} id={s.orderId} className="text-sm text-muted sm:ml-auto" /> : null}
      </div>
      <Dates s={s} never={active ? "Never" : "N/A"} />
      {s.licence && renewable(s.licence) ? <RenewLink licence={s.licence} autoRenew={s.autoRenew} /> : null}
      <KeyLine code={s.code} />
      {s.licence ? <LicencePanel licence={s.licence} cooldownDays={cooldownDays} /> : null}
      {s.licence && s.replacement ? <ReplacementRequest licenceId={s.licence.id} {...s.replacement} /> : null}
    </Card>
  );
}

/** A timed licence that still works (or has only run out) may be renewed, keeping its key. */
const renewable = (licence: NonNullable<Subscription["licence"]>) =>
  licence.plan !== "lifetime" && licence.state !== "revoked" && licence.state !== "banned";

/** Renewing keeps the key: the time is added to this licence (decision 090). */
function RenewLink({ licence, autoRenew }: { licence: NonNullable<Subscription["licence"]>; autoRenew: boolean }) {
  const ended = licence.state === "expired";
  return (
    <div className="mt-3 flex flex-wrap items-center gap-x-3 gap-y-2">
      <Link
        to={`/dashboard/renew/${licence.id}`}
        className={buttonClass(ended ? "primary" : "outline", "sm")}
        aria-label={`Renew or upgrade ${licence.product} ${PLAN_NAME[licence.plan]}`}
      >
        <RotateCcw className="size-4" aria-hidden /> {ended ? "Renew (same key)" : "Renew or upgrade"}
      </Link>
      {autoRenew ? <Badge tone="blue">Renews automatically</Badge> : null}
    </div>
  );
}

function LicencePanel({ licence, cooldownDays }: { licence: NonNullable<Subscription["licence"]>; cooldownDays: number }) {
  return (
    <div className="mt-4 space-y-4 border-t border-line pt-4">
      <LicenceDetails licence={licence} reader="owner" />
      {ownerCanReset(licence) ? <ResetPcForm licence={licence} nextResetAt={licence.nextOwnerResetAt} cooldownDays={cooldownDays} /> : null}
    </div>
  );
}

function Dates({ s, never }: { s: Subscription; never: string }) {
  return (
    <dl className="mt-2 flex flex-wrap gap-x-6 gap-y-1 text-sm">
      <div>
        <dt className="inline text-muted">Purchased: </dt>
        <dd className="inline">
          <LocalTime ms={s.purchaseDate} />
        </dd>
      </div>
      <div>
        <dt className="inline text-muted">Expires: </dt>
        <dd className="inline">
          {s.licence ? <LicenceExpiry licence={s.licence} never={never} /> : s.expiryDate ? <LocalTime ms={s.expiryDate} /> : never}
        </dd>
      </div>
      <div>
        <dt className="inline text-muted">Price: </dt>
        <dd className="inline">
          {s.priceCurrency} {Number(s.priceAmount).toFixed(2)}
        </dd>
      </div>
    </dl>
  );
}

export default function Subscriptions({ loaderData }: Route.ComponentProps) {
  const { active, past, onItsWay, cooldownDays } = loaderData;
  const { productsHref } = useShop();
  useRecheckWhile(onItsWay);
  return (
    <div className="space-y-8">
      <h1 className="text-3xl font-black">Subscriptions</h1>

      <section aria-labelledby="current">
        <h2 id="current" className="text-xl font-bold">
          Current Plan
        </h2>
        {onItsWay ? (
          <EmptyState className="mt-3" role="status" title="Your order is being fulfilled">
            Your key appears here in a moment, and is e-mailed to you.
          </EmptyState>
        ) : null}
        {active.length === 0 && !onItsWay ? (
          <EmptyState className="mt-3" title="No Active Plan">
            Pick a plan below to get started.
          </EmptyState>
        ) : (
          <div className="mt-3 space-y-3">
            {active.map((s) => (
              <SubscriptionCard key={s.id} s={s} cooldownDays={cooldownDays} />
            ))}
          </div>
        )}
      </section>

      <section aria-labelledby="past">
        <h2 id="past" className="text-xl font-bold">
          Past Subscriptions
        </h2>
        {past.length === 0 ? (
          <p className="mt-3 text-sm text-muted">Nothing here yet.</p>
        ) : (
          <div className="mt-3 space-y-3">
            {past.map((s) => (
              <SubscriptionCard key={s.id} s={s} cooldownDays={cooldownDays} />
            ))}
          </div>
        )}
      </section>

      <section aria-labelledby="plans">
        <h2 id="plans" className="text-xl font-bold">
          Plans
        </h2>
        <div className="mt-3 grid gap-4 md:grid-cols-3">
          {PLANS.map((plan) => (
            <Card key={plan.name} className={`relative flex flex-col ${plan.popular ? "border-accent" : ""}`}>
              {plan.popular ? (
                <span className="absolute -top-3 left-1/2 -translate-x-1/2 rounded-full bg-accent px-3 py-1 text-xs font-black text-zinc-950">
                  MOST POPULAR
                </span>
              ) : null}
              <h3 className="font-bold">{plan.name}</h3>
              <p className="mt-2 text-3xl font-black">{plan.price}</p>
              <p className="text-sm text-muted">{plan.period}</p>
              <ul className="mt-4 flex-1 space-y-1.5 text-sm">
                {plan.features.map((f) => (
                  <li key={f} className="flex items-center gap-2">
                    <Check className="size-4 text-accent" aria-hidden /> {f}
                  </li>
                ))}
              </ul>
              <Link to={productsHref} className={buttonClass(plan.popular ? "primary" : "outline", "md", "mt-6")}>
                Purchase
              </Link>
            </Card>
          ))}
        </div>
      </section>
    </div>
  );
}
