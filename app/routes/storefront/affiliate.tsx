// /affiliate: the affiliate programme (reached from the footer). Members apply from their
// dashboard (/dashboard/affiliate), so this page stays the same cached bytes for everyone.
import { BadgePercent, Handshake, Wallet } from "~/components/icons";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { DEFAULT_COMMISSION_RATE, DEFAULT_DISCOUNT_RATE, HOLD_DAYS, MIN_PAYOUT_CENTS, REFERRAL_DAYS } from "~/lib/affiliates";
import { BRAND } from "~/lib/brand";
import { formatUsd } from "~/lib/format";
import { publicPageHeaders } from "~/http/edge-cache.server";
import type { Route } from "./+types/affiliate";

export const headers = publicPageHeaders;

export const meta: Route.MetaFunction = () => [
  { title: `Affiliate Program | ${BRAND}` },
  { name: "description", content: `Earn commission by sharing ${BRAND} with your audience.` },
  { property: "og:title", content: `Affiliate Program | ${BRAND}` },
];

const STEPS = [
  {
    icon: Handshake,
    title: "Apply",
    text: "Tell us about your channel or community from your dashboard and choose your code. We answer every application within two days.",
  },
  {
    icon: BadgePercent,
    title: "Share",
    text: `Share your link or your personal code: your audience saves ${DEFAULT_DISCOUNT_RATE}%, and every order they place within ${REFERRAL_DAYS} days of their last click on your link earns you commission.`,
  },
  {
    icon: Wallet,
    title: "Get paid",
    text: `Commission is held ${HOLD_DAYS} days against refunds, then it is yours: move it to your reseller balance at any time, or ask for a crypto payout from ${formatUsd(MIN_PAYOUT_CENTS)}.`,
  },
];

export default function Affiliate() {
  return (
    <div className="mx-auto max-w-5xl space-y-10 px-4 py-12">
      <div>
        <h1 className="text-3xl font-black">Affiliate Program</h1>
        <p className="mt-2 max-w-2xl text-muted">
          Content creators and community owners earn {DEFAULT_COMMISSION_RATE}% commission on every sale made with their code.
        </p>
      </div>
      <div className="grid grid-cols-1 gap-6 md:grid-cols-3">
        {STEPS.map(({ icon: Icon, title, text }) => (
          <Card key={title}>
            <Icon className="size-7 text-accent" aria-hidden />
            <h2 className="mt-3 font-bold">{title}</h2>
            <p className="mt-1 text-sm text-muted">{text}</p>
          </Card>
        ))}
      </div>
      <div>
        <a href="/dashboard/affiliate" className={buttonClass("primary", "lg")}>
          Apply now
        </a>
        <p className="mt-2 text-sm text-muted">You apply with your {BRAND} account; signing in takes you to the form.</p>
      </div>
    </div>
  );
}
