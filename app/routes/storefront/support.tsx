// /support: how to get help, and the four common questions.
import { Link } from "~/components/link";
import { BookOpen, Mail, MessageCircle } from "~/components/icons";
import { useShop } from "~/components/shop";
import { buttonClass } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { BRAND } from "~/lib/brand";
import { publicPageHeaders } from "~/http/edge-cache.server";
import type { Route } from "./+types/support";

export const headers = publicPageHeaders;

export const meta: Route.MetaFunction = () => [
  { title: `Support | ${BRAND}` },
  { name: "description", content: `Get help with ${BRAND}: Discord support, e-mail support within 24 hours, documentation and FAQs.` },
  { property: "og:title", content: `Support | ${BRAND}` },
];

const FAQS = [
  {
    q: "How do I download after purchase?",
    a: "Right after payment you receive an e-mail with your licence key and download instructions. Signed-in members also find the loader under Dashboard → Downloads.",
  },
  {
    q: "Is it undetected?",
    a: (
      <>
        Yes. We track every game update and post the current state on the{" "}
        <Link to="/status" className="text-accent underline">
          Status page
        </Link>
        .
      </>
    ),
  },
  {
    q: "What if I get banned?",
    a: "If you are banned within the first 48 hours of activating your key, contact support and we send you a replacement key.",
  },
  {
    q: "Can I use it on multiple PCs?",
    a: "Each licence is tied to one hardware ID. If you change PCs, reset it yourself under Dashboard → Subscriptions (the page shows when your next reset is allowed), or contact support and we reset it for you.",
  },
];

export default function Support() {
  const { communityUrl, supportEmail } = useShop();
  return (
    <div className="mx-auto max-w-5xl space-y-12 px-4 py-12">
      <div>
        <h1 className="text-3xl font-black">Support Center</h1>
        <p className="mt-2 text-muted">We're here to help, day and night.</p>
      </div>
      <div className="grid grid-cols-1 gap-6 md:grid-cols-3">
        <Card className="flex flex-col">
          <MessageCircle className="size-7 text-accent" aria-hidden />
          <h2 className="mt-3 font-bold">Discord Support</h2>
          <p className="mt-1 flex-1 text-sm text-muted">The fastest way to reach us: open a ticket in our Discord.</p>
          <a href={communityUrl} target="_blank" rel="noreferrer" className={buttonClass("primary", "md", "mt-4")}>
            Join Discord
          </a>
        </Card>
        <Card className="flex flex-col">
          <Mail className="size-7 text-accent" aria-hidden />
          <h2 className="mt-3 font-bold">Email Support</h2>
          <p className="mt-1 flex-1 text-sm text-muted">
            Write to{" "}
            <a href={`mailto:${supportEmail}`} className="text-accent underline">
              {supportEmail}
            </a>
            . We reply within 24 hours.
          </p>
        </Card>
        <Card className="flex flex-col">
          <BookOpen className="size-7 text-accent" aria-hidden />
          <h2 className="mt-3 font-bold">Documentation</h2>
          <p className="mt-1 flex-1 text-sm text-muted">Set-up guides, feature reference and troubleshooting, in the members' hub.</p>
          <Link to="/dashboard" className={buttonClass("outline", "md", "mt-4")}>
            Open the Hub
          </Link>
        </Card>
      </div>
      <section aria-labelledby="faq">
        <h2 id="faq" className="text-2xl font-bold">
          Frequently Asked Questions
        </h2>
        <div className="mt-4 divide-y divide-line rounded-xl border border-line bg-panel">
          {FAQS.map((faq) => (
            <details key={faq.q} className="group p-4">
              <summary className="cursor-pointer list-none font-semibold group-open:text-accent">{faq.q}</summary>
              <p className="mt-2 text-sm text-muted">{faq.a}</p>
            </details>
          ))}
        </div>
      </section>
    </div>
  );
}
