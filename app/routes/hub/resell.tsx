// /dashboard/resell: the reseller panel. The account opens on the first visit; keys are bought
// from the balance at the reseller's discount. Each key shows its licence and, once a customer's
// PC is bound, the owner's Reset PC (the reseller owns the keys they generate, so the Subscriptions
// page's action answers it, as it does a member's own keys).
import { useState } from "react";
import { redirect, useFetcher } from "react-router";
import { BalanceHistory } from "~/components/balance-history";
import { copyText } from "~/components/copy";
import { Copy, FileDown, KeyRound, Percent, Wallet } from "~/components/icons";
import { BoundPc, LicenceStateBadge, ResetPcForm } from "~/components/licence-details";
import { useToast } from "~/components/toaster";
import { LocalTime } from "~/components/local-time";
import { useFetcherForm } from "~/components/use-fetcher-form";
import { useFormCheck } from "~/components/use-form-check";
import { useResultToast } from "~/components/use-result-toast";
import { Badge } from "~/components/ui/badge";
import { Button, buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { type Column, ResponsiveTable } from "~/components/ui/responsive-table";
import { describedBy, Field, FieldError, SelectField } from "~/components/ui/field";
import { inputClass } from "~/components/ui/input-class";
import { answer, answerInvalid, answerProblem } from "~/http/answer.server";
import { app, mailingDeps } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { readSubmission } from "~/http/submission.server";
import { BRAND } from "~/lib/brand";
import { formatUsd } from "~/lib/format";
import { ownerCanReset } from "~/lib/licences";
import type { Problem } from "~/lib/result";
import {
  addBalanceSchema,
  discounted,
  generateKeysSchema,
  KEY_TYPES,
  type KeyType,
  MIN_KEYS_PER_ORDER,
  MINIMUM_ORDER,
  resellSchema,
} from "~/lib/schemas/reseller";
import { generateKeys, resellerOverview, resoldProduct } from "~/server/resellers/reseller-panel.server";
import { openTopUp } from "~/server/crypto/crypto-orders.server";
import { cryptoSetup } from "~/server/crypto/crypto-setup.server";
import { extendSoldKey } from "~/server/renewals/balance-renewals.server";
import { licencesOf, resetCooldownDays, resetCooldownMs } from "~/server/licences/licences.server";
import type { Route } from "./+types/resell";

export const meta: Route.MetaFunction = () => [{ title: `Resell Panel | ${BRAND}` }];

export async function loader({ context }: Route.LoaderArgs) {
  const { db, catalogue, env } = app(context);
  const viewer = currentViewer(context);
  const [overview, prices, licences] = await Promise.all([
    resellerOverview(db, viewer.id),
    resoldProduct(catalogue)
      .then((p) => p.prices)
      .catch((): Partial<Record<KeyType, number>> => ({})),
    licencesOf(db, viewer, resetCooldownMs(env.HWID_RESET_COOLDOWN_DAYS)),
  ]);
  const keys = overview.keys.map((key) => ({ ...key, licence: licences.get(key.keyCode) ?? null }));
  return {
    ...overview,
    keys,
    prices,
    cryptoCoins: cryptoSetup(env, db).coins,
    cooldownDays: resetCooldownDays(env.HWID_RESET_COOLDOWN_DAYS),
    // One id per page load for the keys' Extend forms: the same extension sent twice is paid once.
    extendRequest: crypto.randomUUID(),
  };
}

/** The toast title of an input problem, in the browser and from the server alike. */
function inputProblemTitle(problem: Problem): string {
  if (problem.message === MINIMUM_ORDER) return "Minimum Order Required";
  if (problem.field === "quantity") return "Invalid Quantity";
  if (problem.field === "amount") return "Invalid Amount";
  return "Error";
}

const titles = { invalid: inputProblemTitle };

export async function action({ request, context }: Route.ActionArgs) {
  const { db, catalogue, env } = app(context);
  const viewer = currentViewer(context);
  const submission = await readSubmission(request, resellSchema);
  if (!submission.ok) return answerInvalid(submission, { titles });
  const input = submission.value;
  switch (input.intent) {
    case "add-balance": {
      // Paid in crypto: the order's tracker shows how to pay, and the balance grows once it is confirmed.
      const opened = await openTopUp({ db, setup: cryptoSetup(env, db) }, viewer, input);
      if (!opened.ok) return answerProblem(opened.problem, { titles });
      return redirect(`/dashboard/crypto-tracker?order=${encodeURIComponent(opened.value.orderNumber)}`);
    }
    case "generate":
      return answer(await generateKeys(db, catalogue, viewer, input), {
        titles,
        success: ({ keys }) => ({ title: "Success", description: `Generated ${keys.length} key(s) successfully` }),
      });
    case "extend":
      return answer(await extendSoldKey(mailingDeps(context), catalogue, viewer, input.licenceId, input.request), {
        titles: { ...titles, conflict: "Not extended", "not-found": "Not extended" },
        intent: input.intent,
        success: ({ cents }) => ({ title: "Key extended", description: `${formatUsd(cents)} was taken from your balance.` }),
      });
  }
}

function Stat({ icon: Icon, label, value }: { icon: typeof Wallet; label: string; value: string }) {
  return (
    <Card padding="p-5">
      <p className="flex items-center gap-2 text-sm text-muted">
        <Icon className="size-4 text-accent" aria-hidden /> {label}
      </p>
      <p className="mt-2 text-2xl font-black">{value}</p>
    </Card>
  );
}

type ResellerKey = Route.ComponentProps["loaderData"]["keys"][number];

function KeyCode({ code }: { code: string }) {
  const { toast } = useToast();
  return (
    <span className="inline-flex items-center gap-2 font-mono wrap-anywhere">
      {code}
      <button
        type="button"
        className="shrink-0 rounded p-1 text-muted hover:text-white"
        aria-label={`Copy ${code}`}
        onClick={() => copyText(code, toast, { title: "Code copied to clipboard!" })}
      >
        <Copy className="size-3.5" aria-hidden />
      </button>
    </span>
  );
}

/** The customer's PC a key is bound to, and the reseller's Reset PC for it. */
function KeyPc({ licence, cooldownDays }: { licence: ResellerKey["licence"]; cooldownDays: number }) {
  if (!licence) return <span className="text-muted">—</span>;
  return (
    <span className="inline-flex flex-wrap items-center gap-x-3 gap-y-1">
      <BoundPc licence={licence} unbound={<span className="text-muted">No PC bound</span>} />
      {ownerCanReset(licence) ? (
        <ResetPcForm licence={licence} nextResetAt={licence.nextOwnerResetAt} cooldownDays={cooldownDays} size="sm" />
      ) : null}
    </span>
  );
}

/** Extends a sold key by its plan's term, paid from the balance at the reseller's price (once its clock has started). */
function ExtendKey({ licence, price, request }: { licence: ResellerKey["licence"]; price: number | null; request: string }) {
  const extend = useFetcher<typeof action>();
  useResultToast(extend);
  if (!licence || price === null || licence.activatedAt === null || licence.state === "revoked" || licence.state === "banned") {
    return <span className="text-muted">—</span>;
  }
  return (
    <extend.Form method="post" className="flex flex-col items-start gap-0.5">
      <input type="hidden" name="intent" value="extend" />
      <input type="hidden" name="licenceId" value={licence.id} />
      <input type="hidden" name="request" value={request} />
      <Button
        type="submit"
        variant="outline"
        size="sm"
        disabled={extend.state !== "idle"}
        aria-label={`Extend ${licence.key} for ${formatUsd(price)}`}
      >
        {extend.state !== "idle" ? "Extending..." : "Extend"}
      </Button>
      <span className="text-xs text-muted">{formatUsd(price)}</span>
    </extend.Form>
  );
}

/** The key list's fields, once: the table (wide screens) and the cards (phones) both read them. */
const keyFields = (
  cooldownDays: number,
  extendPrice: (key: ResellerKey) => number | null,
  extendRequest: string,
): Column<ResellerKey>[] => [
  { label: "Key", value: (key) => <KeyCode code={key.keyCode} /> },
  { label: "Type", value: (key) => KEY_TYPES[key.keyType] },
  {
    label: "Status",
    value: (key) => <Badge tone={key.status === "active" ? "green" : "gray"}>{key.status === "active" ? "Active" : "Used"}</Badge>,
  },
  { label: "Licence", value: (key) => (key.licence ? <LicenceStateBadge licence={key.licence} /> : <span className="text-muted">—</span>) },
  { label: "PC", value: (key) => <KeyPc licence={key.licence} cooldownDays={cooldownDays} /> },
  { label: "Purchased", value: (key) => <LocalTime ms={key.purchaseDate} className="text-muted" /> },
  { label: "Extend", value: (key) => <ExtendKey licence={key.licence} price={extendPrice(key)} request={extendRequest} /> },
];

/** The list's own copy and export: every key shown (the newest 200), and a CSV of them all. */
function KeyListActions({ keys, total }: { keys: ResellerKey[]; total: number }) {
  const { toast } = useToast();
  const all = keys.length === total;
  return (
    <div className="flex flex-wrap gap-2">
      <Button
        variant="outline"
        size="sm"
        onClick={() =>
          copyText(keys.map((k) => k.keyCode).join("\n"), toast, {
            title: "Copied!",
            description: `${keys.length} keys copied to clipboard`,
          })
        }
      >
        <Copy className="size-4" aria-hidden /> {all ? "Copy all keys" : `Copy the newest ${keys.length}`}
      </Button>
      <a href={KEYS_CSV} download className={buttonClass("outline", "sm")}>
        <FileDown className="size-4" aria-hidden /> Export all as CSV
      </a>
    </div>
  );
}

const KEYS_CSV = "/dashboard/resell/keys.csv";

export default function Resell({ loaderData }: Route.ComponentProps) {
  const { account, keys, totalKeys, activeKeys, prices, cryptoCoins, ledger, cooldownDays, extendRequest } = loaderData;
  const extendPrice = (key: ResellerKey) => {
    const list = prices[key.keyType];
    return list ? discounted(list, account.discountRate) : null;
  };
  const balanceFetcher = useFetcher<typeof action>();
  const generateFetcher = useFetcher<typeof action>();
  const { formRef: balanceRef, ...balanceCheck } = useFetcherForm(balanceFetcher, addBalanceSchema, { title: inputProblemTitle });
  useResultToast(generateFetcher);
  const generateCheck = useFormCheck(generateKeysSchema, { title: inputProblemTitle, answer: generateFetcher.data });
  const [keyType, setKeyType] = useState<KeyType>("monthly");
  const [quantity, setQuantity] = useState(String(MIN_KEYS_PER_ORDER));
  const listPrice = prices[keyType];
  const unit = listPrice ? discounted(listPrice, account.discountRate) : null;
  const count = Number(quantity);
  const cost = unit !== null && Number.isInteger(count) && count > 0 ? ` ${count} × ${formatUsd(unit)} = ${formatUsd(unit * count)}` : "";
  const quantityHint = `At least ${MIN_KEYS_PER_ORDER} keys per order.${cost}`;

  return (
    <div className="space-y-8">
      <h1 className="text-3xl font-black">Resell Panel</h1>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <Stat icon={Wallet} label="Balance" value={formatUsd(account.balanceCents)} />
        <Stat icon={Percent} label="Your discount" value={`${account.discountRate}%`} />
        <Stat icon={KeyRound} label="Keys generated" value={String(totalKeys)} />
        <Stat icon={KeyRound} label="Active keys" value={String(activeKeys)} />
      </div>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card>
          <h2 className="font-bold">Add Balance</h2>
          <balanceFetcher.Form
            ref={balanceRef}
            method="post"
            className="mt-4 flex flex-col gap-3 sm:flex-row sm:items-end"
            onSubmit={balanceCheck.onSubmit}
          >
            <input type="hidden" name="intent" value="add-balance" />
            <Field
              label="Amount (USD)"
              name="amount"
              inputMode="decimal"
              placeholder="50.00"
              className="sm:flex-1"
              error={balanceCheck.errors.amount}
            />
            {cryptoCoins.length > 1 ? (
              <SelectField
                label="Pay with"
                name="coin"
                defaultValue={cryptoCoins[0]}
                options={cryptoCoins.map((coin) => ({ value: coin, label: coin }))}
              />
            ) : (
              <input type="hidden" name="coin" value={cryptoCoins[0] ?? ""} />
            )}
            <Button type="submit" disabled={balanceFetcher.state !== "idle" || cryptoCoins.length === 0}>
              {balanceFetcher.state !== "idle" ? "Creating order..." : "Pay with crypto"}
            </Button>
          </balanceFetcher.Form>
          <p className="mt-2 text-xs text-muted">
            {cryptoCoins.length > 0
              ? "At least $10. You pay the amount in Bitcoin or Litecoin; it is added to your balance once the payment is confirmed."
              : "Crypto top-ups are not available right now."}
          </p>
          <BalanceHistory entries={ledger} topUpHref={(order) => `/dashboard/crypto-tracker?order=${encodeURIComponent(order)}`} />
        </Card>

        <Card>
          <h2 className="font-bold">Generate Keys</h2>
          <generateFetcher.Form method="post" className="mt-4 space-y-4" onSubmit={generateCheck.onSubmit}>
            <input type="hidden" name="intent" value="generate" />
            <fieldset {...describedBy("key-type", { error: generateCheck.errors.keyType })}>
              <legend className="text-sm font-medium">License type</legend>
              <div className="mt-2 grid grid-cols-2 gap-2">
                {(Object.keys(KEY_TYPES) as KeyType[]).map((type) => (
                  <label
                    key={type}
                    className={`flex cursor-pointer items-center gap-2 rounded-lg border-2 px-3 py-2 text-sm font-semibold ${keyType === type ? "border-accent bg-accent/10" : "border-line"}`}
                  >
                    <input
                      type="radio"
                      name="keyType"
                      value={type}
                      checked={keyType === type}
                      onChange={() => setKeyType(type)}
                      className="accent-accent"
                    />
                    {KEY_TYPES[type]}
                  </label>
                ))}
              </div>
              <FieldError id="key-type" error={generateCheck.errors.keyType} />
            </fieldset>
            <div className="space-y-1.5">
              <label htmlFor="quantity" className="text-sm font-medium">
                Quantity
              </label>
              <input
                id="quantity"
                name="quantity"
                inputMode="numeric"
                value={quantity}
                onChange={(e) => setQuantity(e.target.value)}
                className={inputClass}
                {...describedBy("quantity", { hint: quantityHint, error: generateCheck.errors.quantity })}
              />
              <p id="quantity-hint" className="text-xs text-muted">
                {quantityHint}
              </p>
              <FieldError id="quantity" error={generateCheck.errors.quantity} />
            </div>
            <Button type="submit" disabled={generateFetcher.state !== "idle"}>
              {generateFetcher.state !== "idle" ? "Generating..." : "Generate Keys"}
            </Button>
          </generateFetcher.Form>
        </Card>
      </div>

      <Card>
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 className="font-bold">Your Keys</h2>
          {keys.length > 0 ? <KeyListActions keys={keys} total={totalKeys} /> : null}
        </div>
        {keys.length === 0 ? (
          <p className="mt-3 text-sm text-muted">No keys yet. Generate your first batch above.</p>
        ) : (
          <>
            {keys.length < totalKeys ? (
              <p className="mt-2 text-sm text-muted">
                The newest {keys.length} of your {totalKeys} keys; the CSV has them all.
              </p>
            ) : null}
            <ResponsiveTable
              rows={keys}
              columns={keyFields(cooldownDays, extendPrice, extendRequest)}
              rowKey={(key) => key.id}
              label="Your keys"
            />
          </>
        )}
      </Card>
    </div>
  );
}
