// The product page's fixed content: what you get, customer reviews and demo videos.
import { PlayCircle } from "~/components/icons";
import { Card } from "~/components/ui/card";

const FEATURES: { name: string; items: string[] }[] = [
  { name: "Aimbot", items: ["Smooth aim with adjustable FOV", "Bone selection: head, chest or pelvis", "Visibility checks", "Projectile drop prediction"] },
  { name: "Magic Bullet", items: ["Bullets curve onto the target", "Adjustable hit chance", "Works with every firearm"] },
  { name: "ESP Visuals", items: ["Player boxes, names and distance", "Health bars and held items", "Sleeper and NPC toggles", "Loot, stash and ore ESP"] },
  { name: "Movement", items: ["Spider climb", "Omni-sprint", "No fall damage"] },
  { name: "Weapon Mods", items: ["No recoil", "No spread", "Instant eoka", "Automatic fire for semi-auto weapons"] },
  { name: "Vehicles", items: ["Minicopter speed tuning", "Boat and car ESP", "Fuel display"] },
  { name: "Player List", items: ["Every player on the server", "Steam profile lookup", "Friend and enemy tags"] },
  { name: "Vehicle List", items: ["Every vehicle with distance", "Owner lookup", "Decay timers"] },
  { name: "Teleport", items: ["Teleport to map marker", "Return to last position"] },
  { name: "Server Tools", items: ["Admin detection alerts", "Server info overlay", "Team radar"] },
  { name: "World Mods", items: ["Always day", "Bright nights", "No grass or weather"] },
  { name: "Settings", items: ["Save and load configs", "Custom hotkeys", "Stream-proof overlay"] },
];

export function WhatYouGet() {
  return (
    <section aria-labelledby="what-you-get">
      <h2 id="what-you-get" className="text-xl font-bold">
        What You Get
      </h2>
      <div className="mt-4 divide-y divide-line rounded-xl border border-line bg-panel">
        {FEATURES.map((feature) => (
          <details key={feature.name} className="group">
            <summary className="flex cursor-pointer list-none items-center justify-between px-4 py-3 font-semibold hover:text-accent">
              {feature.name}
              <span aria-hidden className="text-muted transition-transform group-open:rotate-180">
                ▾
              </span>
            </summary>
            <ul className="space-y-1 px-4 pb-4 text-sm text-muted">
              {feature.items.map((item) => (
                <li key={item}>• {item}</li>
              ))}
            </ul>
          </details>
        ))}
      </div>
    </section>
  );
}

export const REVIEWS = [
  { name: "Jake M.", rating: 5, date: "2 days ago", text: "Set up in five minutes. ESP is clean and the aim feels natural, nobody on the server suspected a thing." },
  { name: "Sofia R.", rating: 5, date: "4 days ago", text: "Key arrived instantly by e-mail. Support walked me through the loader on Discord at 2am." },
  { name: "Tom K.", rating: 5, date: "1 week ago", text: "Best recoil control I've used. No frame drops at all on a GTX 1660." },
  { name: "Lukas B.", rating: 4, date: "1 week ago", text: "Great features, the menu took me a bit to learn. Configs from the community helped a lot." },
  { name: "Emma W.", rating: 5, date: "2 weeks ago", text: "Weekly plan was perfect for wipe day. Upgraded to monthly right after." },
  { name: "Daniel P.", rating: 5, date: "2 weeks ago", text: "Updated within hours of the last patch. That's what you pay for." },
  { name: "Noah F.", rating: 5, date: "3 weeks ago", text: "Loot ESP alone is worth it. Found three stashes in my first hour." },
  { name: "Mia S.", rating: 5, date: "3 weeks ago", text: "Clean code, no crashes. Stream-proof overlay works as advertised." },
  { name: "Oliver H.", rating: 5, date: "1 month ago", text: "Replacement key came within the hour when I got flagged on day one. Solid warranty." },
  { name: "Ava L.", rating: 5, date: "1 month ago", text: "Lifetime plan paid for itself. The team keeps adding features." },
];

export const RATING = "4.9";

// Text stars rather than icons: ten reviews would otherwise carry fifty SVGs.
function Stars({ rating }: { rating: number }) {
  return (
    <span role="img" aria-label={`${rating} out of 5 stars`} className="tracking-tight text-accent">
      {"★".repeat(rating)}
      <span className="text-line">{"★".repeat(5 - rating)}</span>
    </span>
  );
}

export function Reviews() {
  return (
    <section aria-labelledby="reviews">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <h2 id="reviews" className="text-xl font-bold">
          Customer Reviews
        </h2>
        <p className="flex items-center gap-2 text-sm">
          <Stars rating={5} /> <span className="font-bold">{RATING}/5</span> <span className="text-muted">from {REVIEWS.length} reviews</span>
        </p>
      </div>
      <div className="mt-4 grid gap-4 md:grid-cols-2">
        {REVIEWS.map((review) => (
          <Card key={review.name} padding="p-5">
            <div className="flex items-center justify-between">
              <p className="font-semibold">{review.name}</p>
              <Stars rating={review.rating} />
            </div>
            <p className="mt-2 text-sm text-muted">{review.text}</p>
            <p className="mt-3 text-xs text-muted">Verified purchase · {review.date}</p>
          </Card>
        ))}
      </div>
    </section>
  );
}

export function DemoVideos() {
  return (
    <section aria-labelledby="demo-videos">
      <h2 id="demo-videos" className="text-xl font-bold">
        Demo Videos
      </h2>
      <div className="mt-4 grid gap-4 sm:grid-cols-2">
        {["Aimbot & Magic Bullet", "ESP & Loot Finder"].map((title) => (
          <div key={title} className="flex aspect-video flex-col items-center justify-center gap-2 rounded-xl border border-line bg-panel-2 text-muted">
            <PlayCircle className="size-10" aria-hidden />
            <p className="text-sm font-semibold">{title}</p>
            <p className="text-xs">Video coming soon</p>
          </div>
        ))}
      </div>
    </section>
  );
}
