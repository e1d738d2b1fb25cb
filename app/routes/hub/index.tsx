// Dashboard home: the live chat and tutorial cards; staff who manage stock also see which variants
// are low (a member's visit reads nothing from the database here).
import { BookOpen, PlayCircle, Rocket } from "~/components/icons";
import { Link } from "~/components/link";
import { LowStockWarning } from "~/components/low-stock-warning";
import { LiveChat } from "./+shared/live-chat";
import { Card } from "~/components/ui/card";
import { app } from "~/http/context.server";
import { currentViewer } from "~/http/guards.server";
import { BRAND } from "~/lib/brand";
import { can } from "~/lib/roles";
import { lowStock } from "~/server/keys/stock-alerts.server";
import type { Route } from "./+types/index";

export async function loader({ context }: Route.LoaderArgs) {
  if (!can(currentViewer(context).role, "stock.manage")) return { lowStock: [] };
  return { lowStock: await lowStock(app(context).db) };
}

export const meta: Route.MetaFunction = () => [{ title: `Dashboard | ${BRAND}` }];

const TUTORIALS = [
  { icon: Rocket, title: "Getting Started Guide", text: "Install the loader, activate your key and launch your first session." },
  { icon: PlayCircle, title: "Video Tutorials", text: "Short walkthroughs of every feature and the recommended settings." },
  { icon: BookOpen, title: "Documentation", text: "Full reference for the menu, configs and troubleshooting." },
];

export default function DashboardHome({ loaderData }: Route.ComponentProps) {
  return (
    <div className="space-y-8">
      <h1 className="text-3xl font-black">
        Welcome to the <span className="text-accent">{BRAND}</span> Hub
      </h1>
      <LowStockWarning rows={loaderData.lowStock} linkToCodes />
      <LiveChat room="general" />
      <section aria-labelledby="tutorials" className="space-y-4">
        <h2 id="tutorials" className="text-xl font-bold">
          Tutorials
        </h2>
        <div className="grid grid-cols-1 gap-4 md:grid-cols-3">
          {TUTORIALS.map(({ icon: Icon, title, text }) => (
            <Card key={title}>
              <Icon className="size-6 text-accent" aria-hidden />
              <h3 className="mt-3 font-semibold">{title}</h3>
              <p className="mt-1 text-sm text-muted">{text}</p>
            </Card>
          ))}
        </div>
        <Link to="/support" className="inline-block text-sm font-semibold text-accent hover:underline">
          View All Resources
        </Link>
      </section>
    </div>
  );
}
