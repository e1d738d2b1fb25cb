// /affiliate: the affiliate programme (reached from the footer).
import { BadgePercent, Handshake, Wallet } from "~/components/icons";
import { useShop } from "~/components/shop";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { BRAND } from "~/lib/brand";
import { publicPageHeaders } from "~/http/edge-cache.server";
import type { Route } from "./+types/affiliate";

export const headers = publicPageHeaders;

export const meta: Route.MetaFunction = () => [
  { title: `Affiliate Program | ${BRAND}` },
  { name: "description", content: `Earn commission by sharing ${BRAND} with your audience.` },
  { property: "og:title", content: `Affiliate Program | ${BRAND}` },
];

const STEPS = [
  { icon: Handshake, title: "Apply", text: "Tell us about your channel or community in our Discord. We answer every application within two days." },
  { icon: BadgePercent, title: "Share", text: "Get a personal discount code for your audience: they save, you earn on every order." },
  { icon: Wallet, title: "Get paid", text: "Commission is paid out monthly in crypto or as reseller balance, whichever you prefer." },
];

export default function Affiliate() {
  const { communityUrl } = useShop();
  return (
    <div className="mx-auto max-w-5xl space-y-10 px-4 py-12">
      <div>
        <h1 className="text-3xl font-black">Affiliate Program</h1>
        <p className="mt-2 max-w-2xl text-muted">
          Content creators and community owners earn 20% commission on every sale made with their code.
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
      <a href={communityUrl} target="_blank" rel="noreferrer" className={buttonClass("primary", "lg")}>
        Apply on Discord
      </a>
    </div>
  );
}
