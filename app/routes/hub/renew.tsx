// /dashboard/renew/:licence: the member renews one licence, keeping its key (decision 090): its
// plan again (from its expiry while it runs, from the payment once it has ended) or a longer plan
// at the price less the unused time, by card, in crypto or from their balance, and auto-renewal.
// A signed one-click link (a reminder's, the program's) goes straight to the card checkout of its
// plan; a signed-out member is asked to sign in first by the dashboard's guard.
import { Form, redirect, useFetcher, useNavigation } from "react-router";
import { Link } from "~/components/link";
import { ArrowLeft, CreditCard, RotateCcw, Wallet } from "~/components/icons";
import { LicenceStateBadge } from "~/components/licence-details";
import { LocalTime } from "~/components/local-time";
import { useResultToast } from "~/components/use-result-toast";
import { Button, buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { SelectField } from "~/components/ui/field";
import { answer, answerInvalid, answerProblem } from "~/http/answer.server";
import { app, mailingDeps } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { notFound } from "~/http/refusals.server";
import { readSubmission } from "~/http/submission.server";
import { BRAND } from "~/lib/brand";
import { formatCents, formatUsd } from "~/lib/format";
import type { LicencePlan } from "~/lib/plans";
import { creditLabel } from "~/lib/renewals";
import { renewSchema } from "~/lib/schemas/renewals";
import { openCryptoRenewal } from "~/server/crypto/crypto-orders.server";
import { cryptoSetup } from "~/server/crypto/crypto-setup.server";
import { queueRoleSync } from "~/server/discord/role-sync.server";
import { licenceSigner } from "~/server/licences/signing.server";
import { renewFromBalance, setAutoRenew } from "~/server/renewals/balance-renewals.server";
import { checkoutFromLink, renewalCheckout } from "~/server/renewals/renewal-checkout.server";
import { renewalPage } from "~/server/renewals/renewal-page.server";
import type { Route } from "./+types/renew";

export const meta: Route.MetaFunction = () => [{ title: `Renew | ${BRAND}` }];

const licenceIdOf = (param: string | undefined) => {
  const id = Number(param);
  if (!Number.isSafeInteger(id) || id <= 0) throw notFound("No such licence on your account");
  return id;
};

function checkoutDeps(context: Route.LoaderArgs["context"], request: Request) {
  const { db, env, catalogue } = app(context);
  return { db, catalogue, config: env, origin: new URL(request.url).origin };
}

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { db, env, catalogue } = app(context);
  const viewer = currentViewer(context);
  const licenceId = licenceIdOf(params.licence);
  const url = new URL(request.url);
  let linkProblem: string | null = null;
  // A one-click link: straight to the checkout of the plan it names.
  if (url.searchParams.has("signature")) {
    const signer = await licenceSigner(env.LICENCE_SIGNING_KEY);
    const link = {
      plan: url.searchParams.get("plan"),
      expires: url.searchParams.get("expires"),
      signature: url.searchParams.get("signature"),
    };
    const checkout = await checkoutFromLink(checkoutDeps(context, request), signer.ok ? signer.value : null, viewer, licenceId, link);
    if (checkout.ok) return redirect(checkout.value.checkoutUrl);
    if (checkout.problem.code === "not-found") throw notFound(checkout.problem.message);
    linkProblem = checkout.problem.message;
  }
  const page = await renewalPage(db, catalogue, viewer, licenceId);
  if (!page.ok) throw notFound(page.problem.message);
  return {
    ...page.value,
    linkProblem,
    coins: cryptoSetup(env, db).coins,
    // One id per balance form the page shows: the same payment sent twice is taken once.
    balanceRequest: crypto.randomUUID(),
  };
}

const NOT_RENEWED = "Not renewed";
const titles = { invalid: NOT_RENEWED, conflict: NOT_RENEWED, "not-found": NOT_RENEWED, unavailable: NOT_RENEWED };

export async function action({ request, params, context }: Route.ActionArgs) {
  const { db, env, catalogue } = app(context);
  const viewer = currentViewer(context);
  const licenceId = licenceIdOf(params.licence);
  const submission = await readSubmission(request, renewSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const input = submission.value;
  switch (input.intent) {
    case "card": {
      const checkout = await renewalCheckout(checkoutDeps(context, request), viewer, { licenceId, plan: input.plan });
      return checkout.ok ? redirect(checkout.value.checkoutUrl) : answerProblem(checkout.problem, { titles, intent: input.intent });
    }
    case "crypto": {
      const opened = await openCryptoRenewal({ db, setup: cryptoSetup(env, db) }, catalogue, viewer, {
        licenceId,
        plan: input.plan,
        coin: input.coin,
      });
      if (!opened.ok) return answerProblem(opened.problem, { titles, intent: input.intent });
      return redirect(`/dashboard/crypto-tracker?order=${encodeURIComponent(opened.value.orderNumber)}`);
    }
    case "balance": {
      const paid = await renewFromBalance(mailingDeps(context), catalogue, viewer, {
        licenceId,
        plan: input.plan,
        claimKey: `balance:${input.request}`,
      });
      // A licence that had ended works again: its Discord roles come back now.
      if (paid.ok) await queueRoleSync(env.JOB_QUEUE, [viewer.id]);
      return answer(paid, {
        titles,
        intent: input.intent,
        success: ({ row, cents }) => ({
          title: row.kind === "upgrade" ? "Licence upgraded" : "Licence extended",
          description: `${formatUsd(cents)} was taken from your balance. ${row.expiresAt === null ? "It never ends." : "It now runs until the date shown."}`,
        }),
      });
    }
    case "auto-renew":
      return answer(await setAutoRenew(db, viewer, licenceId, input.on), {
        titles: { ...titles, conflict: "Auto-renew not turned on" },
        intent: input.intent,
        success: ({ on }) =>
          on
            ? { title: "Auto-renew on", description: "A day before it ends, the licence renews from your balance." }
            : { title: "Auto-renew off", description: "The licence will not renew by itself." },
      });
  }
}

type PageData = Route.ComponentProps["loaderData"];

/** Pay by card, in crypto or from the balance, for one plan at one price. */
function PayOptions({ plan, priceCents, currency, data }: { plan: LicencePlan; priceCents: number; currency: string; data: PageData }) {
  const navigation = useNavigation();
  const balance = useFetcher<typeof action>();
  useResultToast(balance);
  const busy = navigation.state !== "idle" && navigation.formData?.get("plan") === plan ? navigation.formData.get("intent") : null;
  const spendable = data.balance.balanceCents + data.balance.commissionCents;
  const price = formatCents(priceCents, currency);
  return (
    <div className="mt-4 flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end">
      <Form method="post">
        <input type="hidden" name="intent" value="card" />
        <input type="hidden" name="plan" value={plan} />
        <Button type="submit" disabled={busy !== null} className="w-full sm:w-auto">
          <CreditCard className="size-4" aria-hidden /> {busy === "card" ? "Opening checkout..." : `Pay ${price} by card`}
        </Button>
      </Form>
      {data.coins.length > 0 && currency === "USD" ? (
        <Form method="post" className="flex items-end gap-2">
          <input type="hidden" name="intent" value="crypto" />
          <input type="hidden" name="plan" value={plan} />
          {data.coins.length > 1 ? (
            <SelectField
              label="Coin"
              name="coin"
              defaultValue={data.coins[0]}
              options={data.coins.map((c) => ({ value: c, label: c }))}
              className="w-24"
            />
          ) : (
            <input type="hidden" name="coin" value={data.coins[0]} />
          )}
          <Button type="submit" variant="outline" disabled={busy !== null}>
            {busy === "crypto" ? "Creating order..." : "Pay with crypto"}
          </Button>
        </Form>
      ) : null}
      {currency === "USD" ? (
        <balance.Form method="post">
          <input type="hidden" name="intent" value="balance" />
          <input type="hidden" name="plan" value={plan} />
          <input type="hidden" name="request" value={data.balanceRequest} />
          <Button
            type="submit"
            variant="outline"
            disabled={balance.state !== "idle" || spendable < priceCents}
            className="w-full sm:w-auto"
          >
            <Wallet className="size-4" aria-hidden />{" "}
            {balance.state !== "idle" ? "Paying..." : `Pay from balance (${formatUsd(spendable)})`}
          </Button>
        </balance.Form>
      ) : null}
    </div>
  );
}

function AutoRenewCard({ data }: { data: PageData }) {
  const toggle = useFetcher<typeof action>();
  useResultToast(toggle);
  const on = toggle.formData ? toggle.formData.get("on") === "on" : data.autoRenew;
  const spendable = data.balance.balanceCents + data.balance.commissionCents;
  return (
    <Card>
      <h2 className="font-bold">Auto-renew</h2>
      <p className="mt-1 text-sm text-muted">
        A day before the licence ends, its price is taken from your reseller balance (and your available affiliate commission when the
        balance is short), once. If they fall short, you get an e-mail instead. You have {formatUsd(spendable)}.
      </p>
      <toggle.Form method="post" className="mt-3">
        <input type="hidden" name="intent" value="auto-renew" />
        <input type="hidden" name="on" value={on ? "off" : "on"} />
        <Button type="submit" variant={on ? "outline" : "primary"} disabled={toggle.state !== "idle"} aria-pressed={on}>
          <RotateCcw className="size-4" aria-hidden /> {on ? "Turn auto-renew off" : "Turn auto-renew on"}
        </Button>
      </toggle.Form>
    </Card>
  );
}

export default function Renew({ loaderData, actionData }: Route.ComponentProps) {
  const data = loaderData;
  const { licence, renewal, upgrades, linkProblem } = data;
  // A card or crypto payment that could not start answers here (the others answer in a toast).
  const refused =
    actionData && "ok" in actionData && !actionData.ok && (actionData.intent === "card" || actionData.intent === "crypto")
      ? actionData.toast.description
      : null;
  return (
    <div className="max-w-3xl space-y-6">
      <Link to="/dashboard/subscriptions" className="inline-flex items-center gap-1 text-sm text-muted hover:text-white">
        <ArrowLeft className="size-4" aria-hidden /> Subscriptions
      </Link>
      <div className="space-y-2">
        <h1 className="text-3xl font-black">Renew {licence.product}</h1>
        <p className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
          <span className="font-mono">{licence.key}</span>
          <span className="text-muted">{licence.planName} plan</span>
          <LicenceStateBadge licence={licence} />
        </p>
        <p className="text-sm text-muted">Same key, same PC: the time is added to this licence, nothing to reinstall.</p>
      </div>
      {linkProblem || refused ? (
        <p role="alert" className="rounded-lg border border-yellow-500/40 bg-yellow-500/10 p-3 text-sm text-yellow-200">
          {refused ?? linkProblem}
        </p>
      ) : null}
      {renewal ? (
        <Card as="section" aria-labelledby="renew-heading">
          <h2 id="renew-heading" className="font-bold">
            Renew: {renewal.variantTitle}
          </h2>
          <p className="mt-1 text-sm">
            {licence.state === "expired" ? "It has ended: it runs again from the payment" : "The time is added to its end"}
            {renewal.newExpiry !== null ? (
              <>
                , until <LocalTime ms={renewal.newExpiry} format="datetime" /> if you pay now.
              </>
            ) : (
              "."
            )}
          </p>
          <PayOptions plan={renewal.plan} priceCents={renewal.priceCents} currency={renewal.currency} data={data} />
        </Card>
      ) : (
        <Card>
          <h2 className="font-bold">Renew</h2>
          <p className="mt-1 text-sm text-muted">
            {licence.plan === "lifetime"
              ? "A lifetime licence never ends."
              : licence.state === "not-activated"
                ? "This key has not been used yet: its time starts at its first use, so there is nothing to extend."
                : "This licence cannot be renewed."}
          </p>
        </Card>
      )}
      {upgrades.map((upgrade) => (
        <Card as="section" key={upgrade.plan} aria-labelledby={`upgrade-${upgrade.plan}`}>
          <h2 id={`upgrade-${upgrade.plan}`} className="font-bold">
            Upgrade to {upgrade.planName}
          </h2>
          <dl
            className="mt-2 grid grid-cols-[1fr_auto] gap-x-4 gap-y-1 text-sm tabular-nums"
            aria-label={`Price of the upgrade to ${upgrade.planName}`}
          >
            <dt>{upgrade.variantTitle}</dt>
            <dd className="text-right">{formatCents(upgrade.quote.targetCents, upgrade.currency)}</dd>
            <dt className="text-muted">
              {creditLabel(upgrade.quote, licence.plan)}: {upgrade.quote.unusedDays} ×{" "}
              {formatCents(upgrade.quote.currentCents, upgrade.currency)} ÷ {upgrade.quote.termDays}
            </dt>
            <dd className="text-right text-green-400">−{formatCents(upgrade.quote.creditCents, upgrade.currency)}</dd>
            <dt className="border-t border-line pt-1 font-semibold">You pay</dt>
            <dd className="border-t border-line pt-1 text-right font-semibold">
              {formatCents(upgrade.quote.priceCents, upgrade.currency)}
            </dd>
          </dl>
          <p className="mt-2 text-xs text-muted">
            {upgrade.plan === "lifetime"
              ? "The same key becomes lifetime, with the plan's features."
              : "The same key takes the new plan and its features; its new term starts at the payment."}
          </p>
          <PayOptions plan={upgrade.plan} priceCents={upgrade.quote.priceCents} currency={upgrade.currency} data={data} />
        </Card>
      ))}
      {renewal ? <AutoRenewCard data={data} /> : null}
      <Link to="/dashboard/subscriptions" className={buttonClass("ghost", "sm")}>
        Back to Subscriptions
      </Link>
    </div>
  );
}
